#!/usr/bin/env python3
"""Makes swift-argument-parser's mdoc pages read as Debian's man tools expect, and as git's and
gh's pages are named (make man runs it):
- each page is renamed from vigil.account.add.1 to vigil-account-add.1 (man vigil-account-add),
  NAME and the SEE ALSO references with it; SYNOPSIS keeps the command as it is typed;
- .Nd without quotes (whatis shows them otherwise);
- the examples of the command's help (a paragraph "Examples:", CommandHelp.swift) become the
  EXAMPLES section, and its "Exit codes: ..." sentence the EXIT STATUS section (with the codes
  every command shares), instead of mdoc's "exits 0 on success, and >0";
- ENVIRONMENT and FILES, the same on every page;
- a blank line (an empty input line, which groff warns about) becomes a paragraph break (.Pp).
Usage: man-fix.py PAGE.1..."""
import os
import re
import sys

COMMON_CODES = [
    ("64", "a wrong flag or argument (usage)"),
    ("78", "a broken configuration: a managed file Vigil cannot use, or invalid settings"),
    ("130, 143", "interrupted by Ctrl-C (SIGINT) or SIGTERM (as a shell reports it)"),
]

ENVIRONMENT = """.Sh ENVIRONMENT
.Bl -tag -width 6n
.It Ev VIGIL_*
Any setting, its key upper-cased with dots and dashes as underscores
.Po Ev VIGIL_CONNECTION_REVOCATION_POLICY Pc ;
see
.Nm vigil config explain .
.It Ev VIGIL_MANAGED_CONFIG
Another managed (administrator's) file, only on a machine without /etc/vigil/managed.json.
.It Ev VIGIL_PROXY_CA_FILE
CAs an https proxy's certificate may chain to.
.It Ev https_proxy , Ev http_proxy , Ev no_proxy
The proxy, unless the settings name one.
.It Ev SSL_CERT_FILE , Ev SSL_CERT_DIR
The system trust store, as OpenSSL reads it.
.It Ev BROWSER
The browser a browser login opens (else xdg-open).
.It Ev XDG_DATA_HOME , Ev XDG_CONFIG_HOME , Ev XDG_STATE_HOME
Where the database, the user's settings and the log are (below).
.El
.Sh FILES
.Bl -tag -width 6n
.It Pa $XDG_DATA_HOME/vigil/vigil.sqlite
Accounts, approved certificates and the audit trail (never a secret: those are in the Secret Service keyring).
.It Pa $XDG_CONFIG_HOME/vigil/settings.json
The user's settings.
.It Pa /etc/vigil/managed.json
The administrator's settings and locks.
.It Pa $XDG_STATE_HOME/vigil/logs/vigil.log
The log (privacy-masked).
.It Pa /usr/share/vigil
The simulator's scenarios and test PKI.
.El"""


def dashed(name):
    return name.replace(".", "-")


def split_exit_codes(text):
    """The "Exit codes: ..." sentence of a description paragraph, and the paragraph without it."""
    match = re.search(r"Exit codes: (.*?\.)(?=\s+[A-Z]|\s*$)", text, re.S)
    if not match:
        return None, text
    rest = (text[: match.start()] + text[match.end() :]).strip()
    return match.group(1), re.sub(r"  +", " ", rest)


def exit_status(sentence):
    lines = [".Sh EXIT STATUS"]
    if sentence:
        lines.append(sentence[0].upper() + sentence[1:])
    said = sentence or ""
    missing = [(code, meaning) for code, meaning in COMMON_CODES if not re.search(r"\b" + code.split(",")[0] + r"\b", said)]
    if missing:
        lines.append(".Pp")
        lines.append("Every command also exits with:")
        lines.append(".Bl -tag -width 10n -compact")
        for code, meaning in missing:
            lines += [".It " + code, meaning]
        lines.append(".El")
    return lines


def examples(block):
    """The "Examples:" block (description lines and indented command lines) as mdoc."""
    out = [".Sh EXAMPLES"]
    command = []
    for line in block:
        if line.startswith("    "):
            command.append(line[4:])
            continue
        if command:
            out += [".Bd -literal -offset indent"] + command + [".Ed"]
            command = []
        if line.strip():
            if len(out) > 1:
                out.append(".Pp")
            out.append(line.strip())
    if command:
        out += [".Bd -literal -offset indent"] + command + [".Ed"]
    return out


def fix(path):
    page = os.path.basename(path)[: -len(".1")]
    lines = open(path, encoding="utf-8").read().split("\n")
    out, section, command = [], None, None
    example_block, exit_sentence, in_examples = [], None, False
    for line in lines:
        if line.startswith(".Sh "):
            section = line[4:].strip('"')
            in_examples = False
        if section == "DESCRIPTION" and line == "Examples:":
            in_examples = True
            if out and out[-1] == ".Pp":
                out.pop()
            continue
        if in_examples:
            if line.startswith("."):
                in_examples = False
            else:
                # roff escapes the shell's line continuation as \e
                example_block.append(line.replace("\\e", "\\\\"))
                continue
        if section == "DESCRIPTION" and not line.startswith(".") and "Exit codes:" in line:
            exit_sentence, line = split_exit_codes(line)
            if not line:
                continue
        if line.startswith(".Dt "):
            line = ".Dt " + dashed(page).upper() + " 1"
        elif section == "NAME" and line.startswith(".Nm ") and command is None:
            command = line[4:]
            line = ".Nm " + dashed(page)
        elif line == ".Nm" and command is not None:
            line = ".Nm " + command
        elif section == "NAME" and line.startswith('.Nd "') and line.endswith('"'):
            line = ".Nd " + line[5:-1]
        elif line.startswith(".Xr vigil."):
            name, rest = line[4:].split(" ", 1)
            line = ".Xr " + dashed(name) + " " + rest
        elif line == ".Sh \"EXIT STATUS\"":
            # mdoc's order: ENVIRONMENT, FILES, EXIT STATUS, EXAMPLES, then SEE ALSO.
            out += ENVIRONMENT.split("\n")
            out += exit_status(exit_sentence)
            out += examples(example_block) if example_block else []
            section = "EXIT STATUS"
            continue
        elif line == ".Ex -std":
            continue
        elif line == "" and out and out[-1] != "":
            if out[-1] == ".Pp" or out[-1].startswith(".Sh"):
                continue
            line = ".Pp"
        if line == "" and out and out[-1] == "":
            continue
        out.append(line)
    while out and out[-1] in ("", ".Pp"):
        out.pop()
    target = os.path.join(os.path.dirname(path), dashed(page) + ".1")
    open(target, "w", encoding="utf-8").write("\n".join(out) + "\n")
    if target != path:
        os.remove(path)


for path in sys.argv[1:]:
    fix(path)
