#!/usr/bin/env python3
"""Makes the files of TARGET those of SOURCE, for a build that goes on in TARGET.

    python3 .ci/sync-tree.py SOURCE TARGET

SOURCE's files are its git-listed ones (tracked and new, not ignored) when it is a git work
tree, otherwise every file but its `.build` and `.git`. In TARGET, `.build` and `.git` are left
alone; a file whose content is SOURCE's is not touched (SwiftPM and the Swift driver go by the
files' times, so what did not change is not compiled again), the others are written anew, and
the files SOURCE does not have are deleted.

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


def source_files(source):
    if os.path.isdir(os.path.join(source, ".git")):
        listed = subprocess.run(
            ["git", "-C", source, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            check=True, capture_output=True).stdout.decode().split("\0")
        return {path for path in listed if path and os.path.isfile(os.path.join(source, path))}
    found = set()
    for folder, folders, files in os.walk(source):
        relative_folder = os.path.relpath(folder, source)
        folders[:] = [f for f in folders
                      if not is_kept(os.path.normpath(os.path.join(relative_folder, f)))]
        found.update(os.path.normpath(os.path.join(relative_folder, name)) for name in files)
    return found


def sync(source, target):
    wanted = source_files(source)
    written = 0
    for relative in sorted(wanted):
        old, new = os.path.join(source, relative), os.path.join(target, relative)
        if os.path.isdir(new) and not os.path.islink(new):
            shutil.rmtree(new)
        if os.path.isfile(new) and not os.path.islink(new) and filecmp.cmp(old, new, shallow=False):
            shutil.copymode(old, new)
            continue
        os.makedirs(os.path.dirname(new), exist_ok=True)
        if os.path.lexists(new):
            os.remove(new)
        shutil.copyfile(old, new)
        shutil.copymode(old, new)
        written += 1
    deleted = 0
    walked = []
    for folder, folders, files in os.walk(target):
        relative_folder = os.path.normpath(os.path.relpath(folder, target))
        folders[:] = [f for f in folders
                      if not is_kept(os.path.normpath(os.path.join(relative_folder, f)))]
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


def prune_modules(target):
    """Deletes the built modules of targets the package at `target` does not have."""
    folders = glob.glob(os.path.join(target, ".build", "*", "*", "Modules")) + glob.glob(
        os.path.join(target, ".build", "*", "*", "Modules-tool"))
    if not folders:
        return 0
    described = subprocess.run(
        ["swift", "package", "describe", "--type", "json"], cwd=target, check=True,
        capture_output=True).stdout
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
    source, target = (os.path.abspath(path) for path in sys.argv[1:])
    if not os.path.isdir(source):
        sys.exit(f"{source} is not a folder")
    os.makedirs(target, exist_ok=True)
    files, written, deleted = sync(source, target)
    pruned = prune_modules(target)
    print(f"sync-tree: {files} files, {written} written, {deleted} deleted, "
          f"{pruned} module files of targets gone from the package deleted")


if __name__ == "__main__":
    main()
