#!/usr/bin/env python3
"""Checks make test runs on the code itself (exit 1 with each finding on its own line):
- every @Test function asserts: its body holds #expect, #require, Issue.record or a call of a
  test helper whose name starts with `expect` (which asserts in turn);
- every public error type in Sources is a struct that conforms to VigilError, and no public
  `enum Code` remains (codes are structs over a private enum, so they can grow);
- no test stops a simulator in `defer { Task { ... } }` (not awaited: the next test may start
  before it stopped, and a throw before a manual stop() skips it): withRunningSimulator does it;
- every public declaration of a library module has a `///` comment (an embedder reads them),
  but in the modules still listed in UNDOCUMENTED, which only shrinks;
- no module holds more `try?` (an error dropped) than scripts/try-ratchet.json allows, and one
  that holds fewer lowers its number there: the count only goes down."""
import collections
import glob
import json
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
findings = []

def body_after(text, start):
    depth, index = 1, start
    while depth and index < len(text):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
        index += 1
    return text[start:index]

for path in sorted(glob.glob(f"{root}/Tests/**/*.swift", recursive=True)):
    text = open(path, encoding="utf-8").read()
    for match in re.finditer(r"@Test\b.*?\bfunc\s+(\w+)[^{]*\{", text, re.S):
        body = body_after(text, match.end())
        if not re.search(r"#expect|#require|Issue\.record|\bexpect[A-Z]\w*\(", body):
            line = text.count("\n", 0, match.start()) + 1
            findings.append(f"{path}:{line}: test {match.group(1)} asserts nothing")

for path in sorted(glob.glob(f"{root}/Tests/**/*.swift", recursive=True)):
    for number, line in enumerate(open(path, encoding="utf-8"), 1):
        if re.search(r"defer\s*\{\s*Task\s*\{", line) and not line.lstrip().startswith("///"):
            findings.append(f"{path}:{number}: a simulator stopped in defer {{ Task {{ ... }} }} is not awaited; use withRunningSimulator")

for path in sorted(glob.glob(f"{root}/Sources/**/*.swift", recursive=True)):
    text = open(path, encoding="utf-8").read()
    for match in re.finditer(r"public (struct|enum|class) (\w*Error)\b([^{]*)\{", text):
        kind, name, conformances = match.groups()
        line = text.count("\n", 0, match.start()) + 1
        if kind != "struct":
            findings.append(f"{path}:{line}: public error {name} is a {kind}; make it a struct over a private code enum")
        # MaskedError is what the log keeps of an error, not an error a module throws. CodedError
        # is VigilError with equality by code (VigilErrors).
        elif "VigilError" not in conformances and "CodedError" not in conformances and name != "MaskedError":
            findings.append(f"{path}:{line}: public error {name} does not conform to VigilError")
    for match in re.finditer(r"public enum Code\b", text):
        line = text.count("\n", 0, match.start()) + 1
        findings.append(f"{path}:{line}: a public enum Code cannot grow; use a struct over a private enum")

# Library modules whose public declarations are not all documented yet (issue 23): remove a
# module once it is; never add one.
UNDOCUMENTED: set[str] = set()
PUBLIC_DECLARATION = re.compile(
    r"\s*public (?:static |final |mutating |override |nonisolated |indirect )*(?:func|var|let|struct|enum|class|actor|protocol|init|typealias|subscript|case)\b")
for path in sorted(glob.glob(f"{root}/Sources/Vigil*/**/*.swift", recursive=True)):
    if path.split("/Sources/")[1].split("/")[0] in UNDOCUMENTED:
        continue
    lines = open(path, encoding="utf-8").read().split("\n")
    for index, line in enumerate(lines):
        if not PUBLIC_DECLARATION.match(line):
            continue
        above = index - 1
        while above >= 0 and lines[above].strip().startswith("@"):
            above -= 1
        if above < 0 or not lines[above].strip().startswith("///"):
            findings.append(f"{path}:{index + 1}: a public declaration without a /// comment")

# The try? ratchet: per module, never more than the committed count, and the count lowered with
# the change that removes one (so that it cannot creep back).
ratchet = json.load(open(f"{root}/scripts/try-ratchet.json", encoding="utf-8"))["modules"]
dropped = collections.Counter()
for path in sorted(glob.glob(f"{root}/Sources/**/*.swift", recursive=True)):
    module = path.split("/Sources/")[1].split("/")[0]
    for line in open(path, encoding="utf-8"):
        if not line.strip().startswith("//"):
            dropped[module] += len(re.findall(r"\btry\?", line))
for module in sorted(set(dropped) | set(ratchet)):
    allowed, found = ratchet.get(module, 0), dropped[module]
    if found > allowed:
        findings.append(f"Sources/{module}: {found} try? where scripts/try-ratchet.json allows {allowed}: handle the error (a typed one the caller must handle)")
    elif found < allowed:
        findings.append(f"Sources/{module}: {found} try?, fewer than the {allowed} scripts/try-ratchet.json allows: lower it to {found}")

for finding in findings:
    print(finding)
if findings:
    print(f"code-health: {len(findings)} finding(s)")
    sys.exit(1)
print(f"code-health: every test asserts; every public error is a VigilError struct; public declarations documented; {sum(dropped.values())} try? within the ratchet")
