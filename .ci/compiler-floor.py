#!/usr/bin/env python3
"""The compiler floor: the portable layers must build with Swift 6.2 (Xcode 26.0 to 26.3), the
compiler `swift-tools-version:6.2` names, while CI's toolchain is Swift 6.3. No 6.2 toolchain
can be installed here (no network; Debian's packages have none), so this is a static stand-in:
it fails when the portable layers (and the app package of .ci/consumer, which shows what a team
writes) use a construct that Swift 6.3 accepts and Swift 6.2 does not, as the Swift Evolution
proposals that brought them record:

  module selectors `Module::name` (SE-0491), `@c` (SE-0495), `@section` and `@used` (SE-0492),
  `@inline(always)` (SE-0496), `@export(...)` (SE-0497), `@specialized(...)` (SE-0460).

Code inside `#if compiler(>=6.3)` is allowed (it is not compiled by 6.2). Comments and string
literals are ignored. New standard-library APIs are covered by the availability audit instead
(they carry Apple availability newer than the floor). Anything else new in 6.3 (a changed
inference, a relaxed check) cannot be found this way: only a 6.2 toolchain can tell.

  python3 .ci/compiler-floor.py              audit the portable layers and the app package
  python3 .ci/compiler-floor.py --self-test  prove each rule can fail
"""
import glob
import os
import re
import sys

ROOTS = [
    "Modules/Core", "Modules/Network", "Modules/Repository", "Modules/Service",
    "Modules/Reactor", "Modules/CoreTesting", ".ci/consumer",
] + sorted(glob.glob("Modules/Features/*/Reactor"))

RULES = [
    ("module selector `::` (SE-0491, Swift 6.3)", re.compile(r"\b[A-Za-z_]\w*::[A-Za-z_`]")),
    ("`@c` (SE-0495, Swift 6.3)", re.compile(r"@c\b(?!onvention|oncurrent)")),
    ("`@section` or `@used` (SE-0492, Swift 6.3)", re.compile(r"@(section|used)\b")),
    ("`@inline(always)` (SE-0496, Swift 6.3)", re.compile(r"@inline\(\s*always\s*\)")),
    ("`@export(...)` (SE-0497, Swift 6.3)", re.compile(r"@export\(")),
    ("`@specialized(...)` (SE-0460, Swift 6.3)", re.compile(r"@specialized\(")),
]


def code_lines(text):
    """The lines of `text` with comments and string literals blanked, and the lines inside
    `#if compiler(>=6.3)` (or a later version) blanked too."""
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text, flags=re.S)
    text = re.sub(r'"""(.|\n)*?"""', lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    lines = []
    skipping = []
    for line in text.split("\n"):
        line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        line = re.sub(r"//.*", "", line)
        stripped = line.strip()
        if stripped.startswith("#if"):
            newer = re.search(r"compiler\(\s*>=\s*(\d+)\.(\d+)", stripped)
            skipping.append(bool(newer) and (int(newer.group(1)), int(newer.group(2))) >= (6, 3))
        elif stripped.startswith("#else") or stripped.startswith("#elseif"):
            if skipping:
                skipping[-1] = False
        elif stripped.startswith("#endif"):
            if skipping:
                skipping.pop()
        lines.append("" if any(skipping) else line)
    return lines


def audit(path, text):
    findings = []
    for number, line in enumerate(code_lines(text), 1):
        for name, pattern in RULES:
            if pattern.search(line):
                findings.append(f"{path}:{number}: {name}")
    return findings


def self_test():
    failing = {
        "module selector": "let x = Swift::Int(1)",
        "@c": "@c func exported() {}",
        "@section": '@section("__DATA,x") let table = 1',
        "@used": "@used let marker = 1",
        "@inline(always)": "@inline(always) func f() {}",
        "@export": "@export(implementation) public func f() {}",
        "@specialized": "@specialized(where T == Int) func f<T>(_ t: T) {}",
    }
    passing = [
        "@convention(c) typealias F = () -> Void",
        "@concurrent func f() async {}",
        '// Swift::Int in a comment\nlet s = "a::b"',
        "#if compiler(>=6.3)\n@inline(always) func f() {}\n#endif",
        "#if compiler(>=6.3)\n@c func f() {}\n#else\nfunc f() {}\n#endif",
        "let range = a ..< b; let ok = x ? y : z",
    ]
    ok = True
    for name, source in failing.items():
        if not audit("case", source):
            print(f"self-test FAIL: {name} was not found in: {source}")
            ok = False
    for source in passing:
        found = audit("case", source)
        if found:
            print(f"self-test FAIL: {found} in allowed code: {source!r}")
            ok = False
    if not ok:
        sys.exit(1)
    print(f"self-test ok: {len(failing)} constructs found, {len(passing)} allowed cases pass")


def main():
    if "--self-test" in sys.argv:
        self_test()
        return
    findings = []
    count = 0
    for root in ROOTS:
        for folder, _, files in os.walk(root):
            for name in files:
                if name.endswith(".swift") or name.endswith(".swift.in"):
                    path = os.path.join(folder, name)
                    count += 1
                    findings += audit(path, open(path, encoding="utf-8").read())
    if findings:
        print("Constructs Swift 6.2 does not accept:\n  " + "\n  ".join(findings))
        sys.exit(1)
    print(f"ok: {count} files use nothing Swift 6.3 accepts and Swift 6.2 does not (of the rules in this script)")


if __name__ == "__main__":
    main()
