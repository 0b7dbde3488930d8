#!/usr/bin/env python3
"""App figures: cold start to the first rendered frame, and memory after visiting every screen
N times (it must not grow with N).

    swift build -c release --product Trellis
    python3 Tests/Benchmarks/AppBenchmark/app-benchmark.py [--binary .build/release/Trellis]
        [--runs 10] [--visits 100,200]

Both drive the release binary in script mode against the embedded backend (--instant), with a
fresh data directory each time.

cold-start: from spawning the process to the first line of a `dump` of the screen. The script's
first command runs once the app is idle, so this covers start-up, the composition root, the
splash screen restoring the (absent) session, and the sign-in screen being drawn.

memory: signs in, then visits Tasks, New task and Profile N times (each: open from the menu,
then back), then prints a marker; the resident set size (VmRSS) is read while the app waits.

stored-list: signed in from an earlier launch that showed the task list, the app is started
with `--open trellis://tasks` in a pseudo-terminal (interactive, as a user runs it) and timed
from spawning it to the first output holding a task's title: the list drawn. "offline" starts
it against a server that cannot be reached (a closed port on this machine, and an unroutable
address where the connection attempts hang): the rows come from the device alone. "network"
starts it against the embedded backend three ways, interleaved: --no-cache (nothing kept or
read), an empty cache (the answers are written), and the cache the earlier launch left (shown
at once, then the server's, written again). "script" runs the same three in script mode to a
marker printed after the list settled (the server's answer in and written): the difference
from --no-cache is what the store adds to a cold start.
"""
import argparse
import fcntl
import os
import pty
import select
import shutil
import struct
import statistics
import subprocess
import sys
import tempfile
import termios
import time


def run_script(binary, script, on_marker=None, marker=None, data=None, arguments=("--instant",)):
    """Runs `script` in the app; a data directory made here (none given) is deleted after, with
    the session the script signed in to."""
    owned = data is None
    data = data or tempfile.mkdtemp(prefix="trellis-bench-")
    with tempfile.NamedTemporaryFile("w", suffix=".trellis", delete=False) as handle:
        handle.write(script)
        path = handle.name
    process = None
    try:
        started = time.monotonic()
        process = subprocess.Popen(
            [binary, *arguments, "--quiet", "--data-dir", data, "--script", path],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        first_output = None
        value = None
        for line in process.stdout:
            if first_output is None:
                first_output = time.monotonic() - started
            if marker and line.strip() == marker:
                value = on_marker(process.pid) if on_marker else time.monotonic() - started
        status = process.wait()
        if status != 0:
            sys.exit(f"the app exited with status {status} running the benchmark script")
        return first_output, value
    finally:
        # (An app still running could write its session back into a folder deleted under it.)
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()
        os.unlink(path)
        if owned:
            shutil.rmtree(data, ignore_errors=True)


SIGN_IN = ("expect Sign in to Trellis\ntype username alice\ntype password alice1234\n"
           "tap Sign in\nexpect Welcome, Alice Kim\n")
LIST = "menu Tasks\nexpect Crash when rotating\nprint LISTED\n"


def time_to_text(binary, arguments, data, text, timeout=15):
    """Milliseconds from spawning the app in a 100x30 pseudo-terminal to `text` in its output."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    started = time.monotonic()
    process = subprocess.Popen([binary, *arguments, "--data-dir", data], stdin=slave,
                               stdout=slave, stderr=subprocess.DEVNULL, close_fds=True)
    os.close(slave)
    output, found = b"", None
    try:
        while found is None and time.monotonic() < started + timeout:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                continue
            try:
                output += os.read(master, 65536)
            except OSError:
                break
            if text.encode() in output:
                found = (time.monotonic() - started) * 1000
        os.write(master, b"\x11")  # Ctrl-Q
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass  # killed below
    finally:
        # (Never left running: its data folder is deleted after, as run_script's is.)
        if process.poll() is None:
            process.kill()
            process.wait()
        os.close(master)
    if found is None:
        sys.exit(f"{text!r} never showed with {' '.join(arguments)}")
    return found


def stored_list(binary, runs):
    """Launch to the task list drawn, from the device offline and with the network."""
    template = tempfile.mkdtemp(prefix="trellis-bench-template-")
    try:
        stored_list_from(binary, runs, template)
    finally:
        shutil.rmtree(template, ignore_errors=True)


def stored_list_from(binary, runs, template):
    """`stored_list`, with `template` the data directory each launch starts from a copy of."""
    run_script(binary, SIGN_IN + LIST, data=template)  # signed in, the list shown and kept

    def fresh(cache):
        data = tempfile.mkdtemp(prefix="trellis-bench-")
        try:
            shutil.copytree(template, data, dirs_exist_ok=True)
            if not cache:
                shutil.rmtree(os.path.join(data, "cache"), ignore_errors=True)
        except BaseException:
            shutil.rmtree(data, ignore_errors=True)
            raise
        return data

    def drawn(arguments, cache):
        data = fresh(cache)
        try:
            return time_to_text(binary, [*arguments, "--open", "trellis://tasks"], data,
                                "Crash when rotating")
        finally:
            shutil.rmtree(data, ignore_errors=True)

    def settled(arguments, cache):
        data = fresh(cache)
        try:
            _, listed = run_script(binary, LIST, marker="LISTED", data=data, arguments=arguments)
        finally:
            shutil.rmtree(data, ignore_errors=True)
        return listed * 1000

    def report(label, values, base=None):
        median = statistics.median(values)
        added = f" added_ms={median - base:+.1f}" if base is not None else ""
        print(f"stored-list {label} ms_to_list={median:.1f}{added} runs={len(values)} "
              f"min={min(values):.1f} max={max(values):.1f}")
        return median

    for label, server in [("offline refused", "http://127.0.0.1:9"),
                          ("offline unroutable", "http://192.0.2.1:9")]:
        report(label, [drawn(["--server", server, "--allow-insecure-http"], True)
                       for _ in range(runs)])
    ways = {"no-cache": (["--instant", "--no-cache"], False),
            "empty-cache": (["--instant"], False), "warm-cache": (["--instant"], True)}
    for label, measure in [("network", drawn), ("script", settled)]:
        figures = {name: [] for name in ways}
        for _ in range(runs):
            for name, (arguments, cache) in ways.items():
                figures[name].append(measure(arguments, cache))
        base = statistics.median(figures["no-cache"])
        for name, values in figures.items():
            report(f"{label} {name}", values, base)


def resident_bytes(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/release/Trellis")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--visits", default="100,200")
    parser.add_argument("--only", choices=["cold-start", "memory", "stored-list"])
    options = parser.parse_args()
    if not os.path.exists(options.binary):
        sys.exit(f"{options.binary} does not exist: swift build -c release --product Trellis")

    if options.only in (None, "cold-start"):
        starts = [run_script(options.binary, "dump\n")[0] for _ in range(options.runs)]
        print(f"cold-start ms_to_first_frame={statistics.median(starts) * 1000:.1f} "
              f"runs={options.runs} min={min(starts) * 1000:.1f} max={max(starts) * 1000:.1f}")
    if options.only in (None, "stored-list"):
        stored_list(options.binary, options.runs)
    if options.only not in (None, "memory"):
        return

    sign_in = SIGN_IN
    results = []
    for visits in [int(value) for value in options.visits.split(",")]:
        loop = "menu Tasks\nback\nmenu New task\nback\nmenu Profile\nback\n" * visits
        script = sign_in + loop + "print MEASURE\nsleep 1\n"
        _, rss = run_script(options.binary, script, on_marker=resident_bytes, marker="MEASURE")
        results.append((visits, rss))
        print(f"memory visits_per_screen={visits} rss_kb={rss // 1024}")
    if len(results) >= 2:
        (few, few_rss), (many, many_rss) = results[0], results[-1]
        print(f"memory growth_kb_from_{few}_to_{many}_visits={(many_rss - few_rss) // 1024} "
              f"ratio={many_rss / few_rss:.3f}")


if __name__ == "__main__":
    main()
