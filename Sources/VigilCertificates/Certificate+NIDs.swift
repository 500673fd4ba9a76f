internal import COpenSSL

// OpenSSL NIDs the strict profile refers to, so StrictProfile needs no C import.
let nidNameConstraints = NID_name_constraints
let nidPolicyConstraints = NID_policy_constraints
let nidExtendedKeyUsage = NID_ext_key_usage
let nidSubjectAltName = NID_subject_alt_name
