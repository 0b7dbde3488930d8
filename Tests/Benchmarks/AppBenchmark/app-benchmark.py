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
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def run_script(binary, script, on_marker=None, marker=None):
    data = tempfile.mkdtemp(prefix="trellis-bench-")
    with tempfile.NamedTemporaryFile("w", suffix=".trellis", delete=False) as handle:
        handle.write(script)
        path = handle.name
    started = time.monotonic()
    process = subprocess.Popen(
        [binary, "--instant", "--quiet", "--data-dir", data, "--script", path],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    first_output = None
    value = None
    for line in process.stdout:
        if first_output is None:
            first_output = time.monotonic() - started
        if marker and line.strip() == marker and on_marker:
            value = on_marker(process.pid)
    status = process.wait()
    os.unlink(path)
    if status != 0:
        sys.exit(f"the app exited with status {status} running the benchmark script")
    return first_output, value


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
    options = parser.parse_args()
    if not os.path.exists(options.binary):
        sys.exit(f"{options.binary} does not exist: swift build -c release --product Trellis")

    starts = [run_script(options.binary, "dump\n")[0] for _ in range(options.runs)]
    print(f"cold-start ms_to_first_frame={statistics.median(starts) * 1000:.1f} "
          f"runs={options.runs} min={min(starts) * 1000:.1f} max={max(starts) * 1000:.1f}")

    sign_in = ("expect Sign in to Trellis\ntype username alice\ntype password alice1234\n"
               "tap Sign in\nexpect Welcome, Alice Kim\n")
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
