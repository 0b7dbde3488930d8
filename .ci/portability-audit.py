#!/usr/bin/env python3
"""Static portability audit: do the portable layers compile unchanged for Apple platforms?

CI runs on Linux with no Apple SDK, so nothing there can compile the package for iOS or
macOS. This script is a static stand-in. It reads the Swift files of the portable layers
(by default Modules/Core, Network, Repository, Service, Reactor and CoreTesting; pass other
folders or files as arguments) and checks them against the deployment floor
iOS 17 / macOS 14 (tvOS 17, watchOS 10 and visionOS 1 are the same floor; only iOS and
macOS are checked and reported).

Check (a), Linux-only code:
  * [linux-qualified-call] no `Glibc.`- or `Musl.`-qualified name anywhere;
  * [linux-only-conditional] every `#if` chain with a branch taken only on Linux
    (`canImport(Glibc)`, `canImport(Musl)`, `os(Linux)`) also has a branch taken on
    Darwin (`canImport(Darwin)`, `os(macOS)`, `os(iOS)`, ..., `!os(Linux)`) or an `#else`
    that is not just `#error`;
  * [apple-unavailable-api] a small deny-list of APIs that do not exist on iOS
    (`FileManager.homeDirectoryForCurrentUser`, `homeDirectory(forUser:)`, `Process`) or
    that only compile with Glibc (`SOCK_STREAM.rawValue`);
  * [linux-convention] `environment["XDG_..."]` / `getenv("XDG_...")`: compiles everywhere,
    but the XDG directories are a Linux convention; on iOS files belong in the sandbox's
    Application Support directory. Reported for code compiled for iOS.

Check (b), availability, [newer-than-floor]:
  The toolchain's own module interfaces (Swift, _Concurrency, Synchronization, Observation,
  and _StringProcessing, implicitly imported too, under
  <toolchain>/usr/lib/swift/linux/<Module>.swiftmodule/<triple>.swiftinterface) carry
  Apple `@available(macOS 15.0, iOS 18.0, ...)` attributes even on Linux. Every declaration
  at top level or in a type or extension body is read, with the availability of its own
  attributes, of the enclosing type/extension blocks and of the extended type. A name
  (type, func, var, case, static func such as `immediate`) is "newer than the floor" only
  when EVERY declaration of it needs iOS > 17 or macOS > 14; one older declaration, or one
  with no Apple availability, makes the name safe (so overloaded common names such as
  `count`, `load` or `first` are never reported). The same rule is applied per owner
  type, so `Task.immediate` is recognised even when the project has its own `immediate`.
  Tuple labels of declared types count as declarations too (`Duration.components` is
  `(seconds:, attoseconds:)`, iOS 16, so `.attoseconds` alone is safe). A short hand-kept
  list (FOUNDATION_NEWER) adds Foundation names, since Foundation has no interface on Linux;
  FOUNDATION_SAFE lists names that Foundation declares at or below the floor while the
  interfaces declare them only in newer forms (`NSLock.withLock`). Types that the audited
  sources themselves mark `@available(iOS 18, macOS 15, *)` (every declaration of the name)
  are newer-than-floor names as well, so a fallback wrapper's newer half cannot be used
  unguarded.

  The sources are then stripped of comments and string literals and tokenised. A use is
  reported unless it is inside an `if`/`while #available(...)` block or after a
  `guard #available(...)` whose versions cover it, inside a declaration (or an extension of
  a type) marked `@available(...)` with sufficient versions, or in an `#if` branch that is
  never compiled for that platform.

What counts as a use (to keep the noise down):
  * a capitalised name that the interfaces declare as a type: any use not being declared,
    unless the audited sources declare a type of that name themselves;
  * `X.name` where the interfaces declare a newer `name` in type/extension `X`: reported;
  * `.name` on anything else: reported unless the audited sources declare a member `name`;
  * a bare lowercase name: reported only for newer global functions/variables the audited
    sources do not declare (locals and parameters included).

Limits (it is a heuristic, not a compiler):
  * no type checking: `x.name` is matched by name, so a newer member name used on an
    unrelated type that the interfaces do not list (a Foundation or Dispatch type, say) is
    a false positive until added to FOUNDATION_SAFE, and a newer API reached through an
    overloaded name that also has an older declaration is missed (`Array.span`-style
    additions to names that already existed, new overloads of old methods, new parameters);
  * members of a newer type are reported as well as the type when their names are unique to
    it (`.relaxed`, `.acquiring` next to `Atomic`), but not when shared (`.load`, `.withLock`);
  * only these interfaces and the hand-kept Foundation list; Dispatch, Foundation beyond
    the list, C modules (Darwin vs Glibc signatures, `mode_t` widths) are not checked, and
    what is known depends on the toolchain installed (a newer one knows newer names);
  * language features that need a newer runtime are not APIs and are not checked: an
    `isolated deinit` back-deploys on a @MainActor class, but needs iOS 18.4 / macOS 15.4
    in a class isolated to another global actor (and presumably in an actor); packs in generic
    types need iOS 17 / macOS 14 (the floor, so fine);
  * availability inferred by the compiler (members of an extension of an `@available` type
    declared elsewhere, in another module, protocol witnesses) is only partly modelled;
  * `#if` conditions are evaluated for iOS and macOS only with `os`, `canImport` (a fixed
    list of modules), `!`, `&&`, `||`; anything else (`DEBUG`, `compiler`, `arch`) counts as
    possibly true;
  * bare `/regex/` literals are not recognised as literals.

Usage:
  python3 .ci/portability-audit.py [PATH ...]        audit (default: the portable layers)
  python3 .ci/portability-audit.py --self-test       prove each check can fail
  options: --interfaces DIR (the toolchain's lib/swift/linux, found from `swift` on PATH or
  /opt/swift otherwise), --list-names (the newer-than-floor names read, for review);
  PORTABILITY_AUDIT_VERBOSE=1 makes --self-test print every case's findings.
Exit status: 0 clean, 1 problems found, 2 usage error or toolchain interfaces not found.
"""

import argparse
import bisect
import os
import re
import shutil
import sys
import tempfile
import textwrap
import time

PLATFORMS = ("iOS", "macOS")
FLOOR = {"iOS": (17, 0, 0), "macOS": (14, 0, 0)}
ZERO = (0, 0, 0)
NEVER = (999, 0, 0)  # "unavailable on this platform"
DEFAULT_PATHS = [
    "Modules/Core",
    "Modules/Network",
    "Modules/Repository",
    "Modules/Service",
    "Modules/Reactor",
    "Modules/CoreTesting",
]
# _StringProcessing is imported implicitly too; reading it makes `ranges(of:)` and the other
# iOS 16 string algorithms known as safe.
INTERFACE_MODULES = ["Swift", "_Concurrency", "Synchronization", "Observation", "_StringProcessing"]
TRIPLE = "<arch>-unknown-linux-gnu"  # the interfaces' file name; any architecture will do

# Hand-kept: Foundation has no .swiftinterface on Linux. Only what is known with confidence
# to need more than iOS 17 / macOS 14. (For the record, fine at the floor and so not listed:
# URL.appending(path:), URL(filePath:), URL.currentDirectory() and the FormatStyles are
# iOS 16 / macOS 13 or older; Predicate is iOS 17 / macOS 14.)
# name -> (iOS, macOS, what), or (owner, name) -> ... for members checked only when qualified.
FOUNDATION_NEWER = {
    "RecurrenceRule": ((18, 0, 0), (15, 0, 0), "Calendar.RecurrenceRule"),
    "Expression": ((18, 0, 0), (15, 0, 0), "Foundation.Expression / #Expression"),
    "MainActorMessage": ((26, 0, 0), (26, 0, 0), "NotificationCenter.MainActorMessage"),
    "AsyncMessage": ((26, 0, 0), (26, 0, 0), "NotificationCenter.AsyncMessage"),
    "DiscontiguousAttributedSubstring": ((26, 0, 0), (26, 0, 0), "AttributedString[RangeSet]"),
}
# Not listable by name: Data.bytes / Data.span (iOS 26) share their names with older APIs
# (URLSession.bytes(for:) is iOS 15), so by the overload rule they would never be reported.
# Hand-kept: names that Foundation or Dispatch (not read here) declare at or below the floor
# while the interfaces declare them only in newer forms; without this they would be reported
# on every use, e.g. `lock.withLock { }` on an NSLock.
FOUNDATION_SAFE = {
    "withLock": "NSLocking.withLock is iOS 16 / macOS 13 (a Mutex's withLock is caught at "
                "the Mutex itself)",
    "second": "Calendar.Component.second and the date format fields are old",
}

# Deny-list: token or regex -> (rule, per-platform need, message). Checked in live code.
DENY_TOKENS = {
    "homeDirectoryForCurrentUser": (
        "apple-unavailable-api", {"iOS": NEVER},
        "FileManager.homeDirectoryForCurrentUser is macOS-only (unavailable on iOS)"),
    "Process": (
        "apple-unavailable-api", {"iOS": NEVER},
        "Foundation.Process is macOS-only (unavailable on iOS)"),
}
DENY_PATTERNS = [
    (re.compile(r"\bhomeDirectory\s*\(\s*forUser\b"), 0, "apple-unavailable-api", {"iOS": NEVER},
     "FileManager.homeDirectory(forUser:) is macOS-only (unavailable on iOS)"),
    (re.compile(r"\bSOCK_[A-Z]+\s*\.\s*rawValue\b"), 0, "linux-qualified-call",
     {"iOS": NEVER, "macOS": NEVER},
     "SOCK_*.rawValue only compiles with Glibc (Darwin's SOCK_STREAM is an Int32)"),
    # Matched on the raw text (the key is a string literal); group 1 must be code.
    (re.compile(r"\b(environment|getenv)\s*[\[(]\s*\"XDG_"), 1, "linux-convention", {"iOS": NEVER},
     "XDG base directories are a Linux convention; on iOS use the sandbox's Application "
     "Support directory (FileManager.url(for: .applicationSupportDirectory, ...))"),
]

DECL_KEYWORDS = {
    "struct", "class", "enum", "protocol", "actor", "extension", "typealias",
    "associatedtype", "func", "var", "let", "case", "init", "deinit", "subscript", "macro",
    "operator", "precedencegroup",
}
TYPE_KEYWORDS = {"struct", "class", "enum", "protocol", "actor"}
MODIFIERS = {
    "public", "private", "fileprivate", "internal", "package", "open", "final", "static",
    "class", "nonisolated", "override", "mutating", "nonmutating", "convenience", "required",
    "lazy", "weak", "unowned", "dynamic", "indirect", "consuming", "borrowing", "distributed",
    "optional", "isolated", "prefix", "postfix", "infix", "sending", "__consuming",
}
KEYWORDS = DECL_KEYWORDS | MODIFIERS | {
    "if", "else", "guard", "while", "for", "in", "do", "catch", "try", "throw", "throws",
    "rethrows", "return", "switch", "default", "break", "continue", "fallthrough", "where",
    "as", "is", "self", "Self", "super", "nil", "true", "false", "some", "any", "await",
    "async", "import", "inout", "defer", "repeat", "get", "set", "willSet", "didSet",
}
# canImport(...) on Apple platforms: True, False, or per platform.
CAN_IMPORT = {
    "Darwin": True, "Foundation": True, "Dispatch": True, "ObjectiveC": True,
    "CoreFoundation": True, "Combine": True, "os": True, "OSLog": True, "Security": True,
    "Network": True, "SwiftUI": True, "Observation": True, "Synchronization": True,
    "UIKit": {"iOS"}, "AppKit": {"macOS"}, "Cocoa": {"macOS"},
    "Glibc": False, "Musl": False, "Bionic": False, "Android": False, "WASILibc": False,
    "WinSDK": False, "ucrt": False, "CRT": False, "FoundationNetworking": False,
    "FoundationXML": False,
}
APPLE_OS = {"macOS", "iOS", "tvOS", "watchOS", "visionOS", "xrOS", "OSX"}
OTHER_OS = {"Linux", "Windows", "Android", "FreeBSD", "OpenBSD", "WASI", "Cygwin", "PS4",
            "Haiku", "none"}
LINUX_MARKERS = {("canImport", "Glibc"), ("canImport", "Musl"), ("os", "Linux")}


# --------------------------------------------------------------------------------------
# Lexing

def blank(src):
    """Returns src with comments and string literals (not their interpolations) replaced by
    spaces; newlines and offsets are kept."""
    out = list(src)
    n = len(src)

    def clear(a, b):
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    raw_quote = re.compile(r'#+"')

    def scan_code(i, interp):
        depth = 0
        while i < n:
            c = src[i]
            if c == "/" and src.startswith("//", i):
                j = src.find("\n", i)
                j = n if j < 0 else j
                clear(i, j)
                i = j
                continue
            if c == "/" and src.startswith("/*", i):
                j, level = i + 2, 1
                while j < n and level:
                    if src.startswith("/*", j):
                        level, j = level + 1, j + 2
                    elif src.startswith("*/", j):
                        level, j = level - 1, j + 2
                    else:
                        j += 1
                clear(i, j)
                i = j
                continue
            if c == '"' or (c == "#" and raw_quote.match(src, i)):
                i = scan_string(i)
                continue
            if interp:
                if c == "(":
                    depth += 1
                elif c == ")":
                    if depth == 0:
                        return i
                    depth -= 1
            i += 1
        return i

    def scan_string(i):
        hashes = 0
        while src[i + hashes] == "#":
            hashes += 1
        j = i + hashes
        multiline = src.startswith('"""', j)
        quote = '"""' if multiline else '"'
        j += len(quote)
        end_mark = quote + "#" * hashes
        escape = "\\" + "#" * hashes
        seg = i
        while j < n:
            if src.startswith(end_mark, j):
                clear(seg, j + len(end_mark))
                return j + len(end_mark)
            if src.startswith(escape, j):
                k = j + len(escape)
                if k < n and src[k] == "(":
                    clear(seg, k + 1)
                    close = scan_code(k + 1, True)
                    seg = close
                    j = close + 1
                    continue
                j = k + 1
                continue
            if not multiline and src[j] == "\n":
                clear(seg, j)
                return j
            j += 1
        clear(seg, n)
        return n

    scan_code(0, False)
    return "".join(out)


TOKEN_RE = re.compile(r"""
  (?P<nl>\n)
| (?P<ws>[ \t\r\f\v]+)
| (?P<id>[#@]?[A-Za-z_][A-Za-z_0-9]*|`[^`\n]+`|\$[0-9A-Za-z_]+)
| (?P<num>[0-9][0-9_]*(?:\.[0-9][0-9_]*)*)
| (?P<op>->|&&|\|\||.)
""", re.X)


class Tok:
    __slots__ = ("kind", "text", "pos")

    def __init__(self, kind, text, pos):
        self.kind, self.text, self.pos = kind, text, pos

    def __repr__(self):
        return f"Tok({self.kind},{self.text!r},{self.pos})"


def tokenize(clean):
    toks = []
    for m in TOKEN_RE.finditer(clean):
        kind = m.lastgroup
        if kind == "ws":
            continue
        text = m.group()
        if kind == "id" and text.startswith("`"):
            text = text[1:-1]
        toks.append(Tok(kind, text, m.start()))
    return toks


def match_brackets(toks):
    """Index of the matching bracket for each ( [ { ) ] } token (None if unmatched)."""
    match = [None] * len(toks)
    stack = []
    pairs = {")": "(", "]": "[", "}": "{"}
    for i, t in enumerate(toks):
        if t.kind != "op":
            continue
        if t.text in "([{":
            stack.append(i)
        elif t.text in pairs:
            # tolerate mismatches: unwind to the nearest opener of the right kind
            k = len(stack) - 1
            while k >= 0 and toks[stack[k]].text != pairs[t.text]:
                k -= 1
            if k >= 0:
                j = stack[k]
                del stack[k:]
                match[i], match[j] = j, i
    return match


def parse_version(text):
    parts = [int(p) for p in re.findall(r"[0-9]+", text)][:3]
    while len(parts) < 3:
        parts.append(0)
    return tuple(parts)


def fmt_version(v):
    if v >= NEVER:
        return "never"
    major, minor, patch = v
    return f"{major}.{minor}" + (f".{patch}" if patch else "")


def split_top(text):
    items, depth, cur = [], 0, []
    for c in text:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if c == "," and depth == 0:
            items.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    if "".join(cur).strip():
        items.append("".join(cur).strip())
    return items


PLATFORM_ALIASES = {"iOS": "iOS", "macOS": "macOS", "OSX": "macOS"}


def parse_availability(args):
    """Parses the text between the parentheses of @available / #available.

    Returns (versions, unusable): versions maps iOS/macOS to the version required (NEVER for
    `unavailable`); a platform not named is unconstrained. unusable is True for
    `@available(*, unavailable)` and for names obsoleted in Swift 5/6."""
    items = split_top(args)
    versions, unusable = {}, False
    if not items:
        return versions, unusable
    head = items[0]
    long_form = len(items) > 1 and re.fullmatch(r"[A-Za-z_*]+", head) and any(
        re.match(r"(introduced|deprecated|obsoleted|unavailable|message|renamed|noasync)\b", x)
        for x in items[1:])
    if long_form:
        rest = items[1:]
        if head == "*":
            if any(x == "unavailable" for x in rest):
                unusable = True
            return versions, unusable
        if head == "swift":
            for x in rest:
                m = re.match(r"obsoleted\s*:\s*([0-9.]+)", x)
                if m and parse_version(m.group(1)) <= (6, 0, 0):
                    unusable = True
            return versions, unusable
        platform = PLATFORM_ALIASES.get(head)
        if platform:
            for x in rest:
                if x == "unavailable":
                    versions[platform] = NEVER
                m = re.match(r"introduced\s*:\s*([0-9.]+)", x)
                if m:
                    versions[platform] = max(versions.get(platform, ZERO),
                                             parse_version(m.group(1)))
        return versions, unusable
    for x in items:
        m = re.fullmatch(r"([A-Za-z_]+)\s+([0-9][0-9.]*)", x)
        if m and m.group(1) in PLATFORM_ALIASES:
            versions[PLATFORM_ALIASES[m.group(1)]] = parse_version(m.group(2))
    return versions, unusable


def combine(*version_maps):
    out = {}
    for vm in version_maps:
        for p, v in vm.items():
            out[p] = max(out.get(p, ZERO), v)
    return out


def is_newer(versions):
    return any(versions.get(p, ZERO) > FLOOR[p] for p in PLATFORMS)


# --------------------------------------------------------------------------------------
# Interfaces: name -> minimum availability

class Decl:
    __slots__ = ("name", "versions", "owner", "is_type", "is_global", "unusable")

    def __init__(self, name, versions, owner, is_type, is_global, unusable):
        self.name, self.versions, self.owner = name, versions, owner
        self.is_type, self.is_global, self.unusable = is_type, is_global, unusable


def last_component_after(toks, i):
    """For `extension A.B<C> where ...` starting at toks[i] (after the keyword), the name B."""
    name = None
    while i < len(toks) and toks[i].kind == "id":
        name = toks[i].text
        if i + 1 < len(toks) and toks[i + 1].text == "." and i + 2 < len(toks) \
                and toks[i + 2].kind == "id":
            i += 2
        else:
            break
    return name


def parse_interface(text):
    """Declarations at top level and in type/extension bodies, with their availability.

    Function and accessor bodies (inlinable code) are skipped."""
    toks = tokenize(blank(text))
    match = match_brackets(toks)
    decls = []
    scopes = []  # (versions, unusable, owner) of enclosing type/extension bodies
    pending_versions, pending_unusable = [], False
    if_saved = []
    header = None  # ("type"|"ext"|"member", own versions, unusable, owner, all versions)
    paren = 0
    tuple_depths = []  # paren depths of tuple types in the current header: `-> (a: T, b: U)`
    n = len(toks)
    i = 0

    def scope_state():
        v, u, owner = {}, False, None
        for sv, su, so in scopes:
            v = combine(v, sv)
            u = u or su
            owner = so
        return v, u, owner

    while i < n:
        t = toks[i]
        if t.kind == "nl":
            if header is not None and paren == 0:
                header = None
                tuple_depths = []
            i += 1
            continue
        if t.kind == "id" and t.text in ("#if", "#elseif", "#else", "#endif"):
            if t.text == "#if":
                if_saved.append((list(pending_versions), pending_unusable))
            elif t.text in ("#elseif", "#else") and if_saved:
                pending_versions, pending_unusable = list(if_saved[-1][0]), if_saved[-1][1]
            elif t.text == "#endif" and if_saved:
                if_saved.pop()
            while i < n and toks[i].kind != "nl":
                i += 1
            continue
        if t.kind == "op":
            if t.text in "([":
                paren += 1
                if t.text == "(" and header is not None and header[0] == "member" and i > 0 \
                        and toks[i - 1].text in ("->", ":"):
                    tuple_depths.append(paren)
            elif t.text in ")]":
                if tuple_depths and tuple_depths[-1] == paren:
                    tuple_depths.pop()
                paren = max(0, paren - 1)
            elif t.text == "{" and paren == 0:
                kind = header[0] if header else None
                if kind in ("type", "ext"):
                    scopes.append((header[1], header[2], header[3]))
                    header = None
                    i += 1
                    continue
                # a body (function, accessor, precedencegroup, ...): skip it whole
                header = None
                j = match[i]
                i = (j + 1) if j is not None else n
                continue
            elif t.text == "}":
                if scopes:
                    scopes.pop()
                header = None
            i += 1
            continue
        if t.kind != "id":
            i += 1
            continue
        if header is not None:
            # a tuple label in the declared type (`Duration.components.attoseconds`) is a name
            # a client can use, available with the declaration
            if tuple_depths and tuple_depths[-1] == paren and i + 1 < n \
                    and toks[i + 1].text == ":" and not header[2] and len(header) > 4:
                decls.append(Decl(t.text, header[4], None, False, False, False))
            i += 1
            continue
        if t.text.startswith("@"):
            if i + 1 < n and toks[i + 1].text == "(" and match[i + 1] is not None:
                j = match[i + 1]
                if t.text == "@available":
                    args = text_between(text, toks, i + 1, j)
                    v, u = parse_availability(args)
                    pending_versions.append(v)
                    pending_unusable = pending_unusable or u
                i = j + 1
                continue
            i += 1
            continue
        word = t.text
        nxt = toks[i + 1].text if i + 1 < n else ""
        if word == "class" and nxt in DECL_KEYWORDS:
            i += 1
            continue
        if word not in DECL_KEYWORDS or paren:
            i += 1
            continue
        sv, su, owner = scope_state()
        if word not in ("extension",) and _non_public(toks, i):
            pending_versions, pending_unusable = [], False
            if word in TYPE_KEYWORDS:
                header = ("type", {}, True, None)
            elif word != "case":
                header = ("member", {}, True, owner)
            i += 1
            continue
        own = combine(*pending_versions) if pending_versions else {}
        own_unusable = pending_unusable
        versions = combine(sv, own)
        unusable = su or own_unusable
        pending_versions, pending_unusable = [], False
        is_global = not scopes
        # a type or extension header keeps only its own attributes: scope_state() adds the
        # enclosing ones for its members
        if word == "extension":
            header = ("ext", own, own_unusable, last_component_after(toks, i + 1))
        elif word in TYPE_KEYWORDS:
            name = toks[i + 1].text if i + 1 < n and toks[i + 1].kind == "id" else None
            if name:
                decls.append(Decl(name, versions, owner, True, is_global, unusable))
            header = ("type", own, own_unusable, name)
        elif word == "case":
            j = i + 1
            expect_name = True
            depth = 0
            while j < n and toks[j].kind != "nl":
                tj = toks[j]
                if tj.text in "([":
                    depth += 1
                elif tj.text in ")]":
                    depth -= 1
                elif depth == 0 and tj.text == ",":
                    expect_name = True
                elif depth == 0 and expect_name and tj.kind == "id":
                    decls.append(Decl(tj.text, versions, owner, False, is_global, unusable))
                    expect_name = False
                j += 1
            i = j
            continue
        else:
            header = ("member", own, unusable, owner, versions)
            if word in ("func", "var", "let", "typealias", "associatedtype", "macro"):
                if i + 1 < n and toks[i + 1].kind == "id" and toks[i + 1].text not in ("(",):
                    name = toks[i + 1].text
                    is_type = word in ("typealias", "associatedtype")
                    decls.append(Decl(name, versions, owner, is_type, is_global, unusable))
        i += 1
    return decls


def _non_public(toks, i):
    """Whether the declaration keyword at i has an internal/private modifier on its line
    (@usableFromInline internals are printed in interfaces but cannot be named by clients)."""
    j = i - 1
    while j >= 0 and toks[j].kind != "nl" and toks[j].text not in ("{", "}"):
        if toks[j].text in ("internal", "private", "fileprivate") and not (
                j + 1 < len(toks) and toks[j + 1].text == "("):  # private(set) var
            return True
        j -= 1
    return False


def text_between(text, toks, open_idx, close_idx):
    return text[toks[open_idx].pos + 1:toks[close_idx].pos]


class NameTable:
    """Newer-than-floor names, by name and by (owner, name)."""

    def __init__(self, decls):
        type_versions = {}
        for d in decls:
            if d.is_type and not d.unusable:
                cur = type_versions.get(d.name)
                type_versions[d.name] = d.versions if cur is None else {
                    p: min(cur.get(p, ZERO), d.versions.get(p, ZERO)) for p in PLATFORMS}
        by_name, by_owner = {}, {}
        kinds = {}
        for d in decls:
            if d.unusable:
                continue
            versions = d.versions
            if d.owner and d.owner in type_versions:
                versions = combine(versions, type_versions[d.owner])
            by_name.setdefault(d.name, []).append(versions)
            if d.owner:
                by_owner.setdefault((d.owner, d.name), []).append(versions)
            k = kinds.setdefault(d.name, set())
            k.add("type" if d.is_type else ("global" if d.is_global else "member"))
        self.newer = {n: self._min(vs) for n, vs in by_name.items() if all(map(is_newer, vs))}
        self.newer_owned = {k: self._min(vs) for k, vs in by_owner.items()
                            if all(map(is_newer, vs))}
        self.kinds = {n: kinds[n] for n in self.newer}
        self.all_names = set(by_name)
        for name, (ios, macos, _what) in FOUNDATION_NEWER.items():
            if name not in by_name:
                self.newer[name] = {"iOS": ios, "macOS": macos}
                self.kinds[name] = {"type"} if name[:1].isupper() else {"member"}
        for name in FOUNDATION_SAFE:
            self.newer.pop(name, None)

    @staticmethod
    def _min(vs):
        return {p: min(v.get(p, ZERO) for v in vs) for p in PLATFORMS}


def interface_file(directory, module):
    """<directory>/<module>.swiftmodule/<arch>-unknown-linux-gnu.swiftinterface (the public
    one, not .private.), or None."""
    folder = os.path.join(directory, module + ".swiftmodule")
    if not os.path.isdir(folder):
        return None
    for name in sorted(os.listdir(folder)):
        if name.endswith("-linux-gnu.swiftinterface") and ".private." not in name:
            return os.path.join(folder, name)
    return None


def find_interfaces(explicit):
    if explicit:  # asked for: no fallback to another toolchain
        ok = interface_file(explicit, "Swift") is not None
        return os.path.normpath(explicit) if ok else None
    candidates = []
    swift = shutil.which("swift")
    if swift:
        candidates.append(os.path.join(os.path.dirname(os.path.realpath(swift)),
                                       "..", "lib", "swift", "linux"))
    candidates.append("/opt/swift/usr/lib/swift/linux")
    candidates.append("/usr/lib/swift/linux")
    for c in candidates:
        if interface_file(c, "Swift"):
            return os.path.normpath(c)
    return None


def load_names(interfaces_dir):
    decls = []
    for module in INTERFACE_MODULES:
        path = interface_file(interfaces_dir, module)
        if path is None:
            raise FileNotFoundError(os.path.join(interfaces_dir, module + ".swiftmodule"))
        with open(path, encoding="utf-8", errors="replace") as f:
            decls.extend(parse_interface(f.read()))
    return NameTable(decls)


# --------------------------------------------------------------------------------------
# #if evaluation

def eval_condition(toks, platform):
    """Three-valued value (True/False/None) of an #if condition when compiling for platform."""
    pos = [0]

    def peek():
        return toks[pos[0]].text if pos[0] < len(toks) else None

    def take():
        pos[0] += 1
        return toks[pos[0] - 1]

    def p_or():
        v = p_and()
        while peek() == "||":
            take()
            w = p_and()
            v = True if (v is True or w is True) else (
                False if (v is False and w is False) else None)
        return v

    def p_and():
        v = p_unary()
        while peek() == "&&":
            take()
            w = p_unary()
            v = False if (v is False or w is False) else (
                True if (v is True and w is True) else None)
        return v

    def p_unary():
        if peek() == "!":
            take()
            v = p_unary()
            return None if v is None else not v
        if peek() == "(":
            take()
            v = p_or()
            if peek() == ")":
                take()
            return v
        if peek() is None:
            return None
        t = take()
        if t.text == "true":
            return True
        if t.text == "false":
            return False
        if peek() == "(":
            depth, args = 0, []
            while pos[0] < len(toks):
                x = take()
                if x.text == "(":
                    depth += 1
                    if depth == 1:
                        continue
                elif x.text == ")":
                    depth -= 1
                    if depth == 0:
                        break
                args.append(x.text)
            arg = args[0] if args else ""
            if t.text == "os":
                if arg in APPLE_OS:
                    return (arg == "OSX" and platform == "macOS") or arg == platform
                if arg in OTHER_OS:
                    return False
                return None
            if t.text == "canImport":
                v = CAN_IMPORT.get(arg)
                if isinstance(v, set):
                    return platform in v
                return v
        return None

    try:
        return p_or()
    except IndexError:
        return None


def condition_atoms(toks):
    atoms = set()
    for k in range(len(toks) - 2):
        if toks[k + 1].text == "(" and toks[k].kind == "id":
            atoms.add((toks[k].text, toks[k + 2].text))
    return atoms


def negated_or(conds):
    """Value of `!(c1 || c2 || ...)` given the values of the ci."""
    if any(c is True for c in conds):
        return False
    if all(c is False for c in conds):
        return True
    return None


# --------------------------------------------------------------------------------------
# Sources

class Problem:
    def __init__(self, path, line, col, rule, message):
        self.path, self.line, self.col, self.rule, self.message = path, line, col, rule, message

    def __str__(self):
        return f"{self.path}:{self.line}:{self.col}: [{self.rule}] {self.message}"


class Source:
    def __init__(self, path, display):
        self.path, self.display = path, display
        with open(path, encoding="utf-8", errors="replace") as f:
            self.raw = f.read()
        self.clean = blank(self.raw)
        self.toks = tokenize(self.clean)
        self.match = match_brackets(self.toks)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", self.raw)]
        self.sig = [i for i, t in enumerate(self.toks) if t.kind != "nl"]
        self.sig_index = {i: k for k, i in enumerate(self.sig)}
        # innermost enclosing { for each token
        self.encl = [None] * len(self.toks)
        stack = []
        for i, t in enumerate(self.toks):
            self.encl[i] = stack[-1] if stack else None
            if t.text == "{" and t.kind == "op":
                stack.append(i)
            elif t.text == "}" and t.kind == "op" and stack:
                stack.pop()

    def line_col(self, pos):
        line = bisect.bisect_right(self.line_starts, pos)
        return line, pos - self.line_starts[line - 1] + 1

    def prev_sig(self, i):
        k = self.sig_index.get(i)
        if k is None:
            k = bisect.bisect_left(self.sig, i)
        return self.sig[k - 1] if k - 1 >= 0 else None

    def next_sig(self, i):
        k = self.sig_index.get(i)
        k = (k + 1) if k is not None else bisect.bisect_right(self.sig, i)
        return self.sig[k] if k < len(self.sig) else None

    def problem(self, pos, rule, message):
        line, col = self.line_col(pos)
        return Problem(self.display, line, col, rule, message)


def directive_chains(src):
    """#if chains: list of chains; a chain is a list of branches
    (kind, condition tokens, directive token index, end token index)."""
    toks = src.toks
    chains, stack = [], []
    for i, t in enumerate(toks):
        if t.kind != "id" or t.text not in ("#if", "#elseif", "#else", "#endif"):
            continue
        j = i + 1
        while j < len(toks) and toks[j].kind != "nl":
            j += 1
        cond = toks[i + 1:j]
        if t.text == "#if":
            stack.append([[t.text, cond, i, None]])
        elif not stack:
            continue
        elif t.text in ("#elseif", "#else"):
            stack[-1][-1][3] = i
            stack[-1].append([t.text, cond, i, None])
        else:
            stack[-1][-1][3] = i
            chains.append(stack.pop())
    for chain in stack:  # unterminated
        chain[-1][3] = len(toks)
        chains.append(chain)
    return chains


def dead_ranges(chains, platform):
    """Token index ranges never compiled for platform."""
    ranges = []
    for chain in chains:
        previous = []
        for kind, cond, start, end in chain:
            if kind == "#else":
                taken = negated_or(previous)
                value = None
            else:
                value = eval_condition(cond, platform)
                before = negated_or(previous) if previous else True
                taken = False if (before is False or value is False) else (
                    True if (before is True and value is True) else None)
            if taken is False:
                ranges.append((start, end))
            previous.append(value if kind != "#else" else True)
    return ranges


def in_ranges(ranges, i):
    return any(a <= i < b for a, b in ranges)


def decl_end(src, k):
    """For the declaration keyword at token k, the token index where its scope ends (the
    matching } of its body, or the end of the declaration's last line)."""
    toks, match = src.toks, src.match
    j = k + 1
    n = len(toks)
    while j < n:
        t = toks[j]
        if t.kind == "op" and t.text in "([" and match[j] is not None:
            j = match[j] + 1
            continue
        if t.kind == "op" and t.text == "{":
            return match[j] if match[j] is not None else n - 1
        if t.kind == "op" and t.text == "}":
            return j
        if t.kind == "nl":
            nx = src.next_sig(j)
            if nx is None:
                return n - 1
            w = toks[nx].text
            if w.startswith("@") or w.startswith("#") or w in DECL_KEYWORDS or w in MODIFIERS \
                    or w == "}":
                return j
        j += 1
    return n - 1


def skip_to_decl_keyword(src, i):
    """From token i (after an attribute), skip attributes and modifiers; the index of a
    declaration keyword, or None."""
    toks, match = src.toks, src.match
    j = i
    while j is not None and j < len(toks):
        t = toks[j]
        if t.kind == "nl":
            j += 1
            continue
        if t.text.startswith("@") and t.kind == "id":
            nx = j + 1
            if nx < len(toks) and toks[nx].text == "(" and match[nx] is not None:
                j = match[nx] + 1
            else:
                j += 1
            continue
        if t.text == "class" and j + 1 < len(toks) and toks[src.next_sig(j)].text in DECL_KEYWORDS:
            j += 1
            continue
        if t.text in DECL_KEYWORDS:
            return j
        if t.text in MODIFIERS:
            j += 1
            nx = j
            if nx < len(toks) and toks[nx].text == "(" and match[nx] is not None:  # private(set)
                j = match[nx] + 1
            continue
        return None
    return None


def project_declarations(sources):
    """Names the audited sources declare: types, members, and everything (with params)."""
    types, members, anything = set(), set(), set()
    type_avail = {}
    type_count = {}  # declarations of each type name
    for src in sources:
        toks, match = src.toks, src.match
        n = len(toks)
        for i, t in enumerate(toks):
            if t.kind != "id":
                continue
            w = t.text
            nx = src.next_sig(i)
            if w in DECL_KEYWORDS and nx is not None and toks[nx].kind == "id" \
                    and not (w == "class" and toks[nx].text in DECL_KEYWORDS):
                name = toks[nx].text
                if w in TYPE_KEYWORDS or w in ("typealias", "associatedtype"):
                    types.add(name)
                    type_count[name] = type_count.get(name, 0) + 1
                elif w in ("func", "var", "let", "case", "macro"):
                    members.add(name)
                anything.add(name)
                if w == "case":  # case a, b, c
                    j = nx + 1
                    while j < n and toks[j].kind != "nl":
                        if toks[j].text == "," and j + 1 < n and toks[j + 1].kind == "id":
                            members.add(toks[j + 1].text)
                            anything.add(toks[j + 1].text)
                        j += 1
            if w in ("func", "init", "subscript"):
                j = i + 1
                while j < n and toks[j].text not in ("(", "{") and toks[j].kind != "nl":
                    j += 1
                if j < n and toks[j].text == "(" and match[j] is not None:
                    for k in range(j + 1, match[j]):
                        if toks[k].kind == "id" and k + 1 < n and toks[k + 1].text == ":":
                            anything.add(toks[k].text)
            if w == "in":  # closure parameters and for-in variables
                j = src.prev_sig(i)
                steps = 0
                while j is not None and steps < 40 and toks[j].text not in ("{", "for", "}"):
                    if toks[j].kind == "id":
                        anything.add(toks[j].text)
                    j = src.prev_sig(j)
                    steps += 1
            if w == "@available" and i + 1 < n and toks[i + 1].text == "(" \
                    and match[i + 1] is not None:
                k = skip_to_decl_keyword(src, match[i + 1] + 1)
                if k is not None and toks[k].text in TYPE_KEYWORDS:
                    nk = src.next_sig(k)
                    if nk is not None:
                        v, _ = parse_availability(
                            src.clean[toks[i + 1].pos + 1:toks[match[i + 1]].pos])
                        type_avail.setdefault(toks[nk].text, []).append(v)
    # a type is known as @available only when every declaration of that name is annotated
    type_avail = {name: {p: min(v.get(p, ZERO) for v in vs) for p in PLATFORMS}
                  for name, vs in type_avail.items() if len(vs) == type_count.get(name, 0)}
    return types, members, anything, type_avail


def coverage(src, type_avail):
    """Token ranges covered by #available / @available: list of (start, end, versions)."""
    toks, match = src.toks, src.match
    n = len(toks)
    out = []
    for i, t in enumerate(toks):
        if t.kind != "id":
            continue
        if t.text in ("@available", "#available") and i + 1 < n and toks[i + 1].text == "(" \
                and match[i + 1] is not None:
            close = match[i + 1]
            versions, unusable = parse_availability(src.clean[toks[i + 1].pos + 1:toks[close].pos])
            if unusable:
                versions = {p: NEVER for p in PLATFORMS}
            if not versions:
                continue
            if t.text == "@available":
                k = skip_to_decl_keyword(src, close + 1)
                if k is not None:
                    out.append((i, decl_end(src, k), versions))
                continue
            # #available: find the statement keyword before it
            j = src.prev_sig(i)
            kw = None
            while j is not None:
                tj = toks[j]
                if tj.text in (")", "]") and match[j] is not None:
                    j = src.prev_sig(match[j])
                    continue
                if tj.text in ("if", "guard", "while"):
                    kw = j
                    break
                if tj.text in ("{", "}", ";") or tj.text.startswith("#"):
                    break
                j = src.prev_sig(j)
            if kw is None:
                continue
            j = close + 1
            body = None
            seen_else = False
            while j < n:
                tj = toks[j]
                if tj.text in ("(", "[") and match[j] is not None:
                    j = match[j] + 1
                    continue
                if tj.text == "else" and toks[kw].text == "guard":
                    seen_else = True
                if tj.text == "{" and (toks[kw].text != "guard" or seen_else):
                    body = j
                    break
                if tj.text == "}":
                    break
                j += 1
            if body is None or match[body] is None:
                continue
            if toks[kw].text == "guard":
                encl = src.encl[kw]
                end = match[encl] if encl is not None and match[encl] is not None else n
                out.append((match[body], end, versions))
            else:
                out.append((body, match[body], versions))
        elif t.text == "extension":
            nx = src.next_sig(i)
            name = last_component_after(toks, nx) if nx is not None else None
            if name in type_avail:
                k = i
                out.append((i, decl_end(src, k), type_avail[name]))
    return out


def covered(cov, i, platform, need):
    return any(a <= i <= b and v.get(platform, ZERO) >= need for a, b, v in cov)


def check_linux(src, chains):
    problems = []
    toks = src.toks
    for i, t in enumerate(toks):
        if t.kind == "id" and t.text in ("Glibc", "Musl"):
            nx = src.next_sig(i)
            if nx is not None and toks[nx].text == ".":
                mi = src.next_sig(nx)
                member = toks[mi].text if mi is not None else ""
                problems.append(src.problem(
                    t.pos, "linux-qualified-call",
                    f"`{t.text}.{member}` names a Linux-only module: use the unqualified name "
                    f"(the same POSIX name exists in Darwin) or branch with "
                    f"`#if canImport(Darwin)`"))
    for chain in chains:
        linux_branch = None
        has_darwin = False
        for kind, cond, start, end in chain:
            if kind == "#else":
                body = [toks[k] for k in range(start + 1, end) if toks[k].kind != "nl"]
                if body and not any(x.text == "#error" for x in body):
                    has_darwin = True
                continue
            values = [eval_condition(cond, p) for p in PLATFORMS]
            if all(v is False for v in values) and condition_atoms(cond) & LINUX_MARKERS:
                linux_branch = linux_branch or (kind, cond, start)
            elif any(v is True for v in values):
                has_darwin = True
        if linux_branch and not has_darwin:
            kind, cond, start = linux_branch
            text = " ".join(x.text for x in cond)
            text = re.sub(r"\s*([()])\s*", r"\1", text)
            problems.append(src.problem(
                toks[start].pos, "linux-only-conditional",
                f"`{kind} {text}` chain has no Darwin branch: add `#elseif canImport(Darwin)` "
                f"(or an `#else` that is not just `#error`)"))
    return problems


def check_deny(src, dead, cov, project_any):
    problems = []
    toks = src.toks
    for i, t in enumerate(toks):
        if t.kind == "id" and t.text in DENY_TOKENS and t.text not in project_any:
            rule, need, message = DENY_TOKENS[t.text]
            pv = src.prev_sig(i)
            if pv is not None and toks[pv].text in DECL_KEYWORDS:
                continue
            hit = [p for p, v in need.items()
                   if not in_ranges(dead[p], i) and not covered(cov, i, p, v)]
            if hit:
                problems.append(src.problem(t.pos, rule, message + _on(hit)))
    for regex, group, rule, need, message in DENY_PATTERNS:
        text = src.raw if group else src.clean
        for m in regex.finditer(text):
            pos = m.start(group)
            if group and src.clean[pos:m.end(group)] != m.group(group):
                continue  # inside a comment or string
            i = _tok_at(src, pos)
            hit = [p for p, v in need.items()
                   if not in_ranges(dead[p], i) and not covered(cov, i, p, v)]
            if hit:
                problems.append(src.problem(pos, rule, message + _on(hit)))
    return problems


def _tok_at(src, pos):
    if not hasattr(src, "_positions"):
        src._positions = [t.pos for t in src.toks]
    return max(0, bisect.bisect_right(src._positions, pos) - 1)


def _on(platforms):
    return f" (compiled for {', '.join(platforms)})" if platforms else ""


def check_availability(src, names, dead, cov, project_types, project_members, project_any,
                       local_newer):
    problems = []
    per_line = {}  # line -> (position of the first use, [(shown, required)])
    toks = src.toks
    for i, t in enumerate(toks):
        if t.kind != "id" or t.text.startswith(("@", "#", "$")) or t.text in KEYWORDS:
            continue
        name = t.text
        pv = src.prev_sig(i)
        prev = toks[pv].text if pv is not None else ""
        if prev in DECL_KEYWORDS or prev in ("@available", "#available"):
            continue
        nx = src.next_sig(i)
        nxt = toks[nx].text if nx is not None else ""
        need = None
        shown = name
        if prev == ".":
            owner_i = src.prev_sig(pv)
            owner = toks[owner_i].text if owner_i is not None \
                and toks[owner_i].kind == "id" else None
            if owner and (owner, name) in names.newer_owned and owner not in project_types:
                need = names.newer_owned[(owner, name)]
                shown = f"{owner}.{name}"
            elif name in names.newer and name not in project_members \
                    and name not in project_types:
                need = names.newer[name]
                shown = f"{owner}.{name}" if owner else f".{name}"
        else:
            if nxt == ":" and _inside_parens(src, i):
                continue  # an argument label
            kinds = names.kinds.get(name, set())
            if name in local_newer:  # the audited sources' own @available types
                need = local_newer[name]
            elif name in names.newer and "type" in kinds and name not in project_types:
                need = names.newer[name]
            elif name in names.newer and "global" in kinds and name not in project_any:
                need = names.newer[name]
        if not need:
            continue
        hit = []
        for p in PLATFORMS:
            v = need.get(p, ZERO)
            if v > FLOOR[p] and not in_ranges(dead[p], i) and not covered(cov, i, p, v):
                hit.append(p)
        if not hit:
            continue
        line, _ = src.line_col(t.pos)
        req = " / ".join(f"{p} {fmt_version(need.get(p, ZERO))}" for p in PLATFORMS)
        if len(hit) < len(PLATFORMS):
            req += f" (reported for {', '.join(hit)} only)"
        if line not in per_line:
            per_line[line] = (t.pos, [])
        if (shown, req) not in per_line[line][1]:
            per_line[line][1].append((shown, req))
    for line, (pos, uses) in per_line.items():
        what = "; ".join(f"`{shown}` needs {req}" for shown, req in uses)
        problems.append(src.problem(
            pos, "newer-than-floor",
            f"{what} (floor iOS 17 / macOS 14): use it under `if #available(...)` or in a "
            f"declaration marked `@available(...)`"))
    return problems


def _inside_parens(src, i):
    """Whether token i is directly inside ( ) (not inside { } within them)."""
    toks = src.toks
    j = i - 1
    depth = 0
    while j >= 0:
        t = toks[j]
        if t.kind == "op":
            if t.text in ")]}":
                depth += 1
            elif t.text in "([{":
                if depth == 0:
                    return t.text == "("
                depth -= 1
        j -= 1
    return False


def default_paths(root):
    """The portable layers, and every feature's reactor module (Modules/Features/*/Reactor):
    the screens' logic an Apple app keeps."""
    features = os.path.join(root, "Modules", "Features")
    found = sorted(os.path.join("Modules", "Features", f, "Reactor")
                   for f in (os.listdir(features) if os.path.isdir(features) else [])
                   if os.path.isdir(os.path.join(features, f, "Reactor")))
    return DEFAULT_PATHS + found


def collect_files(paths, root):
    files = []
    for p in paths:
        full = p if os.path.isabs(p) else os.path.join(root, p)
        if os.path.isfile(full) and full.endswith(".swift"):
            files.append(full)
        elif os.path.isdir(full):
            for dirpath, dirnames, filenames in os.walk(full):
                dirnames.sort()
                for fn in sorted(filenames):
                    if fn.endswith(".swift"):
                        files.append(os.path.join(dirpath, fn))
        else:
            raise FileNotFoundError(full)
    return files


def audit(files, root, names):
    sources = []
    for f in files:
        rel = os.path.relpath(f, root)
        sources.append(Source(f, rel if not rel.startswith("..") else f))
    project_types, project_members, project_any, type_avail = project_declarations(sources)
    local_newer = {name: v for name, v in type_avail.items() if is_newer(v)}
    problems = []
    for src in sources:
        chains = directive_chains(src)
        dead = {p: dead_ranges(chains, p) for p in PLATFORMS}
        cov = coverage(src, type_avail)
        problems += check_linux(src, chains)
        problems += check_deny(src, dead, cov, project_any)
        problems += check_availability(src, names, dead, cov, project_types, project_members,
                                       project_any, local_newer)
    problems.sort(key=lambda p: (p.path, p.line, p.col, p.rule))
    return problems


# --------------------------------------------------------------------------------------
# Self-test

SELF_TESTS = [
    # (name, source, rules expected: set of rules that must be reported, empty = clean)
    ("glibc-qualified-call", """
        #if canImport(Glibc)
          import Glibc
        #elseif canImport(Darwin)
          import Darwin
        #endif
        func f() { _ = Glibc.write(1, nil, 0) }
        """, {"linux-qualified-call"}),
    ("glibc-without-darwin", """
        #if canImport(Glibc)
          import Glibc
        #endif
        """, {"linux-only-conditional"}),
    ("linux-else-error-only", """
        #if os(Linux)
          import Glibc
        #else
          #error("unsupported platform")
        #endif
        """, {"linux-only-conditional"}),
    ("glibc-musl-darwin-chain", """
        #if canImport(Glibc)
          import Glibc
        #elseif canImport(Musl)
          import Musl
        #elseif canImport(Darwin)
          import Darwin
        #endif
        func f() -> Int32 { errno }
        """, set()),
    ("linux-with-else", """
        #if os(Linux)
          let pathSeparator = "/"
        #else
          let pathSeparator = "/"
        #endif
        """, set()),
    ("task-immediate-unguarded", """
        @MainActor func start() {
          Task.immediate { @MainActor in print("now") }
        }
        """, {"newer-than-floor"}),
    ("task-immediate-in-available", """
        @MainActor func start() {
          if #available(iOS 26, macOS 26, *) {
            Task.immediate { @MainActor in print("now") }
          } else {
            Task { @MainActor in print("later") }
          }
        }
        """, set()),
    ("task-immediate-after-guard", """
        @MainActor func start() {
          guard #available(iOS 26, macOS 26, *) else { return }
          Task.immediate { @MainActor in print("now") }
        }
        """, set()),
    ("task-immediate-in-else", """
        @MainActor func start() {
          if #available(iOS 26, macOS 26, *) {
            print("new")
          } else {
            Task.immediate { @MainActor in print("now") }
          }
        }
        """, {"newer-than-floor"}),
    ("task-immediate-available-too-low", """
        @MainActor func start() {
          if #available(iOS 18, macOS 15, *) {
            Task.immediate { @MainActor in print("now") }
          }
        }
        """, {"newer-than-floor"}),
    ("mutex-in-available-type", """
        import Synchronization
        @available(macOS 15, iOS 18, *)
        final class Counter: Sendable {
          private let value = Mutex<Int>(0)
          func increment() { value.withLock { $0 += 1 } }
        }
        """, set()),
    ("mutex-in-extension-of-available-type", """
        import Synchronization
        @available(macOS 15, iOS 18, *)
        final class Box: Sendable {
          let value = Mutex<Int>(0)
        }
        extension Box {
          func reset() { let m = Mutex<Int>(1); _ = m }
        }
        """, set()),
    ("own-available-type-used-unguarded", """
        import Synchronization
        @available(macOS 15, iOS 18, *)
        final class MutexBox: Sendable {
          let value = Mutex<Int>(0)
        }
        func make() -> AnyObject {
          if #available(macOS 15, iOS 18, *) { return MutexBox() }
          return MutexBox()
        }
        """, {"newer-than-floor"}),
    ("mutex-plain", """
        import Synchronization
        final class Counter: Sendable {
          private let value = Mutex<Int>(0)
        }
        """, {"newer-than-floor"}),
    ("atomic-plain", """
        import Synchronization
        let flag = Atomic<Bool>(false)
        """, {"newer-than-floor"}),
    ("linux-only-branch-is-skipped", """
        #if os(Linux)
          import Synchronization
          let lock = Mutex<Int>(0)
        #else
          import Foundation
          let lock = NSLock()
        #endif
        """, set()),
    ("common-names-not-flagged", """
        func f(_ values: [Int], _ text: String) -> Int {
          let first = values.first ?? 0
          var total = values.count + text.count + first
          for v in values.reversed() { total += v }
          let s = values.map { $0 * 2 }.filter { $0 > 1 }.sorted()
          return total + s.count + values.lazy.reduce(0, +)
        }
        let parts = Duration.seconds(1).components
        let atto = parts.attoseconds  // a tuple label of an iOS 16 API, not Duration.attoseconds
        """, set()),
    ("comments-and-strings-ignored", """
        // Task.immediate { } and Mutex<Int> in a comment, Glibc.write too
        /* nested /* Mutex<Int> */ Atomic<Int> */
        let text = "Task.immediate { Mutex<Int>(0) } Glibc.write"
        let more = \"\"\"
          Mutex<Int>(0) \\(text.count) Atomic
          \"\"\"
        """, set()),
    ("home-directory", """
        import Foundation
        let home = FileManager.default.homeDirectoryForCurrentUser
        """, {"apple-unavailable-api"}),
    ("home-directory-macos-only", """
        import Foundation
        #if os(macOS)
        let home = FileManager.default.homeDirectoryForCurrentUser
        #endif
        """, set()),
    ("xdg", """
        import Foundation
        let dir = ProcessInfo.processInfo.environment["XDG_DATA_HOME"]
        """, {"linux-convention"}),
]


def self_test(names):
    tmp = tempfile.mkdtemp(prefix="portability-audit-")
    failures = 0
    try:
        for name, source, expected in SELF_TESTS:
            path = os.path.join(tmp, name + ".swift")
            with open(path, "w", encoding="utf-8") as f:
                f.write(textwrap.dedent(source).lstrip("\n"))
            problems = audit([path], tmp, names)
            got = {p.rule for p in problems}
            ok = got == expected
            failures += not ok
            status = "ok  " if ok else "FAIL"
            want = ", ".join(sorted(expected)) or "clean"
            print(f"{status} {name}: expected {want}; got {', '.join(sorted(got)) or 'clean'}")
            if not ok or os.environ.get("PORTABILITY_AUDIT_VERBOSE"):
                for p in problems:
                    print(f"       {p}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # The interfaces must yield the names the checks depend on, and not common ones.
    for must in ("Mutex", "Atomic"):
        if must not in names.newer:
            print(f"FAIL interfaces: `{must}` is not known as newer than the floor")
            failures += 1
    if ("Task", "immediate") not in names.newer_owned:
        print("FAIL interfaces: `Task.immediate` is not known as newer than the floor")
        failures += 1
    for common in ("count", "first", "map", "load", "exchange", "min", "max", "Task",
                   "String", "Array", "sleep", "value", "next", "description"):
        if common in names.newer:
            print(f"FAIL interfaces: common name `{common}` is reported as newer than the floor")
            failures += 1
    print(f"portability-audit self-test: {len(SELF_TESTS)} cases, {failures} failures")
    return 1 if failures else 0


# --------------------------------------------------------------------------------------

def main(argv):
    parser = argparse.ArgumentParser(
        description="Static audit: the portable layers compile for iOS 17 / macOS 14.")
    parser.add_argument("paths", nargs="*", help="folders or .swift files "
                        f"(default: {' '.join(DEFAULT_PATHS)} Modules/Features/*/Reactor)")
    parser.add_argument("--self-test", action="store_true", help="run the built-in cases")
    parser.add_argument("--interfaces", help="the toolchain's lib/swift/linux folder")
    parser.add_argument("--list-names", action="store_true",
                        help="print the newer-than-floor names read from the interfaces")
    args = parser.parse_args(argv)
    started = time.monotonic()
    root = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

    interfaces = find_interfaces(args.interfaces)
    if not interfaces:
        print("portability-audit: cannot find the toolchain's module interfaces "
              f"(Swift.swiftmodule/{TRIPLE}.swiftinterface); pass --interfaces DIR",
              file=sys.stderr)
        return 2
    try:
        names = load_names(interfaces)
    except FileNotFoundError as e:
        print(f"portability-audit: missing interface {e}", file=sys.stderr)
        return 2

    if args.list_names:
        for name in sorted(names.newer):
            v = names.newer[name]
            print(f"{name}\tiOS {fmt_version(v['iOS'])}\tmacOS {fmt_version(v['macOS'])}\t"
                  f"{','.join(sorted(names.kinds.get(name, ())))}")
        for (owner, name) in sorted(names.newer_owned):
            v = names.newer_owned[(owner, name)]
            print(f"{owner}.{name}\tiOS {fmt_version(v['iOS'])}\tmacOS {fmt_version(v['macOS'])}")
        return 0

    if args.self_test:
        return self_test(names)

    try:
        files = collect_files(args.paths or default_paths(root), root if not args.paths else os.getcwd())
    except FileNotFoundError as e:
        print(f"portability-audit: no such file or folder: {e}", file=sys.stderr)
        return 2
    problems = audit(files, os.getcwd(), names)
    for p in problems:
        print(p)
    elapsed = time.monotonic() - started
    print(f"portability-audit: {len(files)} files, {len(names.newer)} newer-than-floor names "
          f"known, {len(problems)} problems ({elapsed:.1f} s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
