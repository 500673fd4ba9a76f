#!/usr/bin/env python3
"""docs/architecture.md's module map, generated from Package.swift so that it cannot drift (as
docs/settings.md is generated from the settings catalogue), and the checks that keep the code true
to it.

  architecture-map.py --write   rewrite the map between its markers in docs/architecture.md
  architecture-map.py --check   fail (exit 1) when the map is stale, or when a target's code and
                                Package.swift disagree (make test runs it, via code-health.sh)

What a target is for comes from the comment above it in Package.swift (its first sentence); its
arrows from its declared dependencies. The checks: every Vigil module a Swift target imports is a
declared dependency; every declared Vigil dependency is imported somewhere in the target; a target
that is not a library product declares nothing `public` (its API is `package`, for this package's
executables and tests only).
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAP = os.path.join(ROOT, "docs", "architecture.md")
BEGIN = "<!-- module map: generated from Package.swift by scripts/architecture-map.py --write; do not edit -->"
END = "<!-- end of module map -->"


def package():
    """SwiftPM's own reading of Package.swift."""
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def comments():
    """The comment right above each target's declaration in Package.swift, by target name."""
    text = open(os.path.join(ROOT, "Package.swift"), encoding="utf-8").read().split("\n")
    found = {}
    for index, line in enumerate(text):
        match = re.search(r'\.(?:target|executableTarget|systemLibrary|testTarget)\(\s*$|\.(?:target|executableTarget|systemLibrary|testTarget)\(name: "([^"]+)"', line)
        if not match:
            continue
        name = match.group(1)
        if name is None:
            following = text[index + 1] if index + 1 < len(text) else ""
            named = re.search(r'name: "([^"]+)"', following)
            if not named:
                continue
            name = named.group(1)
        block = []
        j = index - 1
        while j >= 0 and text[j].strip().startswith("//"):
            block.insert(0, text[j].strip()[2:].strip())
            j -= 1
        found[name] = " ".join(block)
    return found


def first_sentence(text):
    match = re.match(r"(.+?\.)(\s|$)", text)
    sentence = match.group(1) if match else text
    return sentence.rstrip(".")


def dependencies(target):
    names = []
    for dependency in target["dependencies"]:
        kind = next(iter(dependency))
        names.append(dependency[kind][0])
    return names


def render(pkg, notes):
    local = {t["name"] for t in pkg["targets"]}
    rows = []
    order = {"executable": 0, "regular": 1, "system": 2}
    targets = [t for t in pkg["targets"] if t["type"] in order and t["name"] != "VigilTestSupport"]
    targets.sort(key=lambda t: (order[t["type"]], t["name"].startswith("C"), t["name"]))
    width = max(len(t["name"]) for t in targets) + 2
    for target in targets:
        deps = dependencies(target)
        vigil = [d for d in deps if d in local]
        external = [d for d in deps if d not in local]
        arrow = ", ".join(vigil + external) if deps else "(no dependencies)"
        what = first_sentence(notes.get(target["name"], "")) or "(no comment in Package.swift)"
        rows.append(f"{target['name'].ljust(width)}{what}")
        rows.append(f"{''.ljust(width)}── {arrow}")
    products = sorted(p["name"] for p in pkg["products"] if "library" in p["type"])
    lines = [BEGIN, "", "```"] + rows + ["```", "", "Library products (an embedder's API): " + ", ".join(f"`{p}`" for p in products) + ".", "", END]
    return "\n".join(lines)


def current_block():
    text = open(MAP, encoding="utf-8").read()
    if BEGIN not in text or END not in text:
        return text, None
    start = text.index(BEGIN)
    end = text.index(END) + len(END)
    return text, text[start:end]


IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*(?:public |package |internal |private |fileprivate )?import (?:struct |class |enum |func |protocol |var |let |typealias )?(\w+)", re.M)
# A public declaration (`public import` is not one: a retroactive conformance of another module's
# public type to a public protocol needs the protocol's module imported publicly).
PUBLIC = re.compile(r"^\s*(?:@[\w()\"., ]+\s+)*(?:(?:final|nonisolated|override|static|mutating|indirect|convenience|required|lazy|dynamic)\s+)*public\b(?! import)", re.M)


def code_checks(pkg):
    problems = []
    local = {t["name"] for t in pkg["targets"]}
    products = {name for p in pkg["products"] if "library" in p["type"] for name in p["targets"]}
    for target in pkg["targets"]:
        if target["type"] not in ("regular", "executable"):
            continue
        base = "Tests" if target["type"] == "test" else "Sources"
        directory = os.path.join(ROOT, target.get("path") or os.path.join(base, target["name"]))
        swift = []
        for folder, _, files in os.walk(directory):
            swift += [os.path.join(folder, f) for f in files if f.endswith(".swift")]
        if not swift:
            continue
        declared = {d for d in dependencies(target) if d in local}
        imported = set()
        public_count = 0
        for path in swift:
            text = open(path, encoding="utf-8").read()
            imported |= {m for m in IMPORT.findall(text) if m in local}
            if target["name"] not in products and target["type"] == "regular":
                public_count += len(PUBLIC.findall(text))
        for module in sorted(imported - declared):
            problems.append(f"{target['name']} imports {module}, which Package.swift does not declare as its dependency")
        for module in sorted(declared - imported):
            problems.append(f"{target['name']} declares {module} in Package.swift and never imports it")
        if public_count:
            problems.append(f"{target['name']} is no library product, yet declares {public_count} public (use package)")
    return problems


def main():
    pkg = package()
    notes = comments()
    block = render(pkg, notes)
    text, current = current_block()
    if "--write" in sys.argv:
        if current is None:
            sys.exit(f"architecture-map: {MAP} has no markers ({BEGIN} ... {END})")
        open(MAP, "w", encoding="utf-8").write(text.replace(current, block))
        print("architecture-map: docs/architecture.md's module map rewritten from Package.swift")
        return
    problems = code_checks(pkg)
    if current != block:
        problems.insert(0, "docs/architecture.md's module map is not Package.swift's: run scripts/architecture-map.py --write")
    for target in pkg["targets"]:
        if target["type"] in ("regular", "executable", "system") and target["name"] != "VigilTestSupport" and not notes.get(target["name"]):
            problems.append(f"{target['name']} has no comment above it in Package.swift (the map says what it is for from it)")
    if problems:
        for problem in problems:
            print("architecture-map: " + problem, file=sys.stderr)
        sys.exit(1)
    print("architecture-map: docs/architecture.md's module map is Package.swift's; every import is declared and every dependency used; no public outside the library products")


if __name__ == "__main__":
    main()
