#!/usr/bin/env python3
"""Makes swift-argument-parser's mdoc pages read as Debian's man tools expect (make man runs it):
- NAME names the page as its file is named (vigil.account.add), which lexgrog and whatis can
  parse (a name with spaces is not), while SYNOPSIS keeps the command as it is typed;
- .Nd without quotes (whatis shows them otherwise);
- a blank line (an empty input line, which groff warns about) becomes a paragraph break (.Pp).
Usage: man-fix.py PAGE.1..."""
import os
import sys

for path in sys.argv[1:]:
    page = os.path.basename(path)[: -len(".1")]
    out, section, command = [], None, None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith(".Sh "):
            section = line[4:].strip('"')
        if section == "NAME" and line.startswith(".Nm ") and command is None:
            command = line[4:]
            line = ".Nm " + page
        elif line == ".Nm" and command is not None:
            line = ".Nm " + command
        elif section == "NAME" and line.startswith('.Nd "') and line.endswith('"'):
            line = ".Nd " + line[5:-1]
        elif line == "" and out and out[-1] != "":
            if out[-1] == ".Pp" or out[-1].startswith(".Sh"):
                continue
            line = ".Pp"
        out.append(line)
    open(path, "w", encoding="utf-8").write("\n".join(out))
