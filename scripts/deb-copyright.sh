#!/usr/bin/env bash
# The package's debian/copyright (machine-readable format 1.0): Vigil's own files, and each
# Swift package linked into the binaries, with its license as its checkout states it (Apache-2.0
# by reference to /usr/share/common-licenses; any other license's text in full), and Swift's
# runtime, Foundation and ICU, linked statically.
set -euo pipefail
cd "$(dirname "$0")/.."
cat <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: vigil
Comment: The binaries link Swift's runtime and the Swift packages below statically; each
 keeps its own license. Vigil's own source has not been given a license yet: its authors
 keep every right, and this package may be used as it is.

Files: *
Copyright: 2026 The Vigil developers
License: LicenseRef-Vigil-unlicensed
 No license has been granted for Vigil's own source yet; all rights are reserved by
 its authors. Installing and running this package is permitted.

Files: swift-runtime/*
Copyright: Apple Inc. and the Swift project authors
License: Apache-2.0 with Runtime Library Exception
 The Swift standard library, Dispatch and Foundation, linked statically.
 .
 On Debian systems, the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0. Runtime Library Exception: as an exception,
 if you use this Software to compile your source code and portions of this Software
 are embedded into the binary product as a result, you may redistribute such product
 without providing attribution as would otherwise be required by Sections 4(a), 4(b)
 and 4(d) of the License.

Files: icu/*
Copyright: 2016-2024 Unicode, Inc.
License: Unicode-3.0
 ICU, as Foundation embeds it in vigil-simulator.
 .
 UNICODE LICENSE V3
 .
 COPYRIGHT AND PERMISSION NOTICE
 .
 Copyright © 2016-2024 Unicode, Inc.
 .
 NOTICE TO USER: Carefully read the following legal agreement. BY DOWNLOADING, INSTALLING,
 COPYING OR OTHERWISE USING DATA FILES, AND/OR SOFTWARE, YOU UNEQUIVOCALLY ACCEPT, AND AGREE
 TO BE BOUND BY, ALL OF THE TERMS AND CONDITIONS OF THIS AGREEMENT. IF YOU DO NOT AGREE, DO
 NOT DOWNLOAD, INSTALL, COPY, DISTRIBUTE OR USE THE DATA FILES OR SOFTWARE.
 .
 Permission is hereby granted, free of charge, to any person obtaining a copy of data files
 and any associated documentation (the "Data Files") or software and any associated
 documentation (the "Software") to deal in the Data Files or Software without restriction,
 including without limitation the rights to use, copy, modify, merge, publish, distribute,
 and/or sell copies of the Data Files or Software, and to permit persons to whom the Data
 Files or Software are furnished to do so, provided that either (a) this copyright and
 permission notice appear with all copies of the Data Files or Software, or (b) this
 copyright and permission notice appear in associated Documentation.
 .
 THE DATA FILES AND SOFTWARE ARE PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A
 PARTICULAR PURPOSE AND NONINFRINGEMENT OF THIRD PARTY RIGHTS. IN NO EVENT SHALL THE
 COPYRIGHT HOLDER OR HOLDERS INCLUDED IN THIS NOTICE BE LIABLE FOR ANY CLAIM, OR ANY
 SPECIAL INDIRECT OR CONSEQUENTIAL DAMAGES, OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS
 OF USE, DATA OR PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS
 ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THE DATA FILES OR
 SOFTWARE.
 .
 Except as contained in this notice, the name of a copyright holder shall not be used in
 advertising or otherwise to promote the sale, use or other dealings in these Data Files or
 Software without prior written authorization of the copyright holder.

Files: boringssl/*
Copyright: Google Inc., the OpenSSL Project and Eric Young
License: Apache-2.0 and ISC and OpenSSL
 BoringSSL, vendored by swift-crypto (CCryptoBoringSSL) and swift-nio-ssl (CNIOBoringSSL) and
 linked statically: its own code under the Apache License 2.0 (on Debian systems in
 /usr/share/common-licenses/Apache-2.0), older parts under the ISC license and the
 OpenSSL and SSLeay licenses, as its LICENSE file
 (https://boringssl.googlesource.com/boringssl/+/refs/heads/master/LICENSE) says.
EOF
for checkout in .build/checkouts/*/; do
  name=$(basename "$checkout")
  license=$(find "$checkout" -maxdepth 1 -iname 'licen[cs]e*' | head -1)
  [ -n "$license" ] || { echo "deb-copyright: $name has no license file" >&2; exit 1; }
  echo
  echo "Files: swift-packages/$name/*"
  if grep -q "Apache License" "$license" && grep -q "Version 2.0" "$license"; then
    echo "Copyright: the $name authors (see its NOTICE)"
    echo "License: Apache-2.0"
    echo " On Debian systems, the full text of the Apache License 2.0 is in"
    echo " /usr/share/common-licenses/Apache-2.0."
  else
    holder=$(grep -m1 -i '^copyright' "$license" | sed 's/^[Cc]opyright *\((c)\|©\)* *//' || true)
    echo "Copyright: ${holder:-the $name authors}"
    if grep -q "Permission is hereby granted, free of charge" "$license"; then echo "License: Expat"; else echo "License: LicenseRef-$name"; fi
    # The text in full, as copyright-format asks: blank lines as " .".
    sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$license"
  fi
  # Apache-2.0 section 4(d): the NOTICE text goes with the work.
  notice=$(find "$checkout" -maxdepth 1 -iname 'notice*' | head -1)
  if [ -n "$notice" ]; then
    echo "Comment: The package's NOTICE:"
    sed -e 's/^[[:space:]]*$/./' -e 's/^/ /' "$notice"
  fi
done
