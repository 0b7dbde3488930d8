#!/usr/bin/env python3
"""Makes the files of TARGET those of SOURCE, for a build that goes on in TARGET.

    python3 .ci/sync-tree.py SOURCE TARGET

SOURCE's files are its git-listed ones (tracked and new, not ignored) when it is the top of a
git work tree, otherwise every file but its `.build` and `.git`. In TARGET, `.build` is left
alone; a file whose content is SOURCE's is not touched (SwiftPM and the Swift driver go by the
files' times, so what did not change is not compiled again), the others are written anew, and
the files SOURCE does not have are deleted. It refuses a TARGET in a git work tree or one that
holds SOURCE (or the other way round, links resolved), and a SOURCE with symbolic links.

Then, when TARGET has been built, the module files of targets its package no longer has are
deleted from the build folder: a source that still imported one (`import TrellisDemoBackend`
after `strip-demo`) would otherwise find it there and build, where a fresh clone would not.
"""

import filecmp
import glob
import json
import os
import shutil
import subprocess
import sys

KEPT = (".build", ".git")


def is_kept(relative):
    return any(relative == name or relative.startswith(name + "/") for name in KEPT)


def fail(message):
    sys.exit(f"sync-tree: {message}")


def work_tree_of(path):
    """The top of the git work tree `path` is in, if any (`path` need not exist yet)."""
    while not os.path.isdir(path):
        path = os.path.dirname(path)
    found = subprocess.run(
        ["git", "-C", path, "rev-parse", "--show-toplevel"], capture_output=True)
    top = found.stdout.decode().strip()
    return os.path.realpath(top) if found.returncode == 0 and top else None


def source_files(source):
    if work_tree_of(source) == source:
        listed = subprocess.run(
            ["git", "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout.decode().split("\0")
        found = {os.path.normpath(path) for path in listed
                 if path and os.path.lexists(os.path.join(source, path))}
    else:
        found = set()
        for folder, folders, files in os.walk(source):
            relative_folder = os.path.relpath(folder, source)
            folders[:] = [f for f in folders
                          if not is_kept(os.path.normpath(os.path.join(relative_folder, f)))]
            found.update(os.path.normpath(os.path.join(relative_folder, name))
                         for name in files + [f for f in folders
                                              if os.path.islink(os.path.join(folder, f))])
    # The trees here have none; a link would be copied as what it points at, or not at all.
    links = sorted(path for path in found if os.path.islink(os.path.join(source, path)))
    if links:
        fail(f"{source} has symbolic links, which this copy does not keep: {', '.join(links)}")
    return {path for path in found if os.path.isfile(os.path.join(source, path))}


def make_folder(target, relative):
    """Makes the folder `relative` in `target`: a file, or a link, where a folder of its path
    should be is deleted first (never followed out of `target`)."""
    path = target
    for part in relative.split("/"):
        if not part or part == ".":
            continue
        path = os.path.join(path, part)
        if os.path.islink(path) or (os.path.lexists(path) and not os.path.isdir(path)):
            os.remove(path)
        if not os.path.isdir(path):
            os.mkdir(path)


def sync(source, target):
    wanted = source_files(source)
    written = 0
    for relative in sorted(wanted):
        old, new = os.path.join(source, relative), os.path.join(target, relative)
        make_folder(target, os.path.dirname(relative))
        if os.path.isdir(new) and not os.path.islink(new):
            shutil.rmtree(new)
        elif (os.path.isfile(new) and not os.path.islink(new)
              and filecmp.cmp(old, new, shallow=False)):
            shutil.copymode(old, new)
            continue
        if os.path.lexists(new):
            os.remove(new)
        shutil.copyfile(old, new)
        shutil.copymode(old, new)
        written += 1
    deleted = 0
    walked = []
    for folder, folders, files in os.walk(target):
        relative_folder = os.path.normpath(os.path.relpath(folder, target))
        # A link to a folder is not followed: it is a file here (none is wanted).
        files = files + [f for f in folders if os.path.islink(os.path.join(folder, f))]
        folders[:] = [f for f in folders
                      if not os.path.islink(os.path.join(folder, f))
                      and not is_kept(os.path.normpath(os.path.join(relative_folder, f)))]
        walked.append((folder, relative_folder, files))
    for folder, relative_folder, files in reversed(walked):
        for name in files:
            relative = os.path.normpath(os.path.join(relative_folder, name))
            if relative not in wanted:
                os.remove(os.path.join(target, relative))
                deleted += 1
        if relative_folder != "." and not os.listdir(folder):
            os.rmdir(folder)
    return len(wanted), written, deleted


# Signals a crash raises (SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV): SwiftPM 6.3 on
# Linux sometimes crashes in libdispatch, which says nothing of the package. (The same signals
# as .ci/swiftpm.sh, which the shell scripts use; unlike it, no wait for orphaned compile jobs,
# since `swift package describe` starts none.)
CRASH_SIGNALS = {4, 5, 6, 7, 8, 11}


def describe_package(target):
    """`swift package describe --type json` in `target`, run again (twice at most) if SwiftPM
    crashed, as .ci/swiftpm.sh runs it; any other failure raises at once."""
    for attempt in range(1, 4):
        result = subprocess.run(
            ["swift", "package", "describe", "--type", "json"], cwd=target, capture_output=True)
        # (Killed by a signal: negative; through a wrapper script such as swiftly's: 128 + n.)
        signal = -result.returncode if result.returncode < 0 else result.returncode - 128
        if signal not in CRASH_SIGNALS or attempt == 3:
            if result.returncode != 0:
                sys.stderr.write(result.stderr.decode(errors="replace"))
            result.check_returncode()
            return result.stdout
        print(f"note: swift package died of signal {signal} (SwiftPM's own process, "
              f"not the code: .ci/sync-tree.py); attempt {attempt} of 3", file=sys.stderr)
    raise AssertionError("unreachable")


def prune_modules(target):
    """Deletes the built modules of targets the package at `target` does not have."""
    folders = [
        path for configuration in ("debug", "release") for kind in ("Modules", "Modules-tool")
        for path in glob.glob(os.path.join(target, ".build", "*", configuration, kind))]
    if not folders:
        return 0
    described = describe_package(target)
    package = json.loads(described)
    modules = {t["c99name"] for t in package["targets"]}
    # The test runner's modules, which SwiftPM writes for the package (renamed with it).
    name = package["name"].replace("-", "_")
    modules |= {name + "PackageTests", name + "PackageDiscoveredTests"}
    pruned = 0
    for folder in folders:
        for path in os.listdir(folder):
            module = path.split(".", 1)[0]
            if module not in modules:
                full = os.path.join(folder, path)
                if os.path.isdir(full) and not os.path.islink(full):
                    shutil.rmtree(full)
                else:
                    os.remove(full)
                pruned += 1
    return pruned


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, target = (os.path.realpath(path) for path in sys.argv[1:])
    if not os.path.isdir(source):
        fail(f"{source} is not a folder")
    # The target's files are replaced or deleted: never the source's, nor a work tree's.
    if os.path.commonpath([source, target]) in (source, target):
        fail(f"{target} and {source} are one inside the other")
    if os.path.lexists(os.path.join(target, ".git")) or work_tree_of(target):
        fail(f"{target} is in a git work tree: its files would be replaced")
    os.makedirs(target, exist_ok=True)
    files, written, deleted = sync(source, target)
    pruned = prune_modules(target)
    print(f"sync-tree: {files} files, {written} written, {deleted} deleted, "
          f"{pruned} module files of targets gone from the package deleted")


if __name__ == "__main__":
    main()
