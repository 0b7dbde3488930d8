# Sourced by the CI scripts (`source .ci/swiftpm.sh`): `swiftpm build|test|package ARGS...` runs
# `swift build|test|package ARGS...`, and runs it again (twice at most) when SwiftPM's own
# process crashed. SwiftPM 6.3 on Linux sometimes crashes in libdispatch
# (`_dispatch_event_loop_drain`; swiftlang/swift#87033 reports the same crash): a build of this
# repository crashed so in CI, once in the layer check, before in the consumer's and the release
# builds. Such a crash says nothing of the code, so it is retried, and said so on stderr (a
# script that sends a command's output to a log shows the log's notes: `swiftpm_notes LOG`).
#
# A crash is a signal a crash raises (SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV; the same
# list as CRASH_SIGNALS in .ci/sync-tree.py, which retries its `swift package describe`); any
# other status is returned as it is, at once: an error of the build (exit 1), a failing test, a
# test binary that crashes (`swift test` exits 1 then: it reports the signal and fails), a kill
# (SIGKILL: out of memory, a time limit), an interrupt or a stop asked for. A `swift test` that
# crashed after its tests started is not run again either: a failure it had seen would be
# hidden. Before a retry, the compile jobs the crashed process left behind are given a minute to
# end. What a caller reads (`swift package ...`, `--show-bin-path`) is printed once, from the
# attempt that counts; `swift test`'s standard error comes on its standard output (a copy is
# read to see whether the tests started). `swift run` is not offered: it replaces itself with
# the app, whose crash would be taken for SwiftPM's; CI starts the built binary instead.
swiftpm() {
  case "${1:-}" in
    build | test | package) ;;
    *)
      echo "swiftpm: only build, test and package are run again after a crash, not '${1:-}'" >&2
      return 2
      ;;
  esac
  local status attempt work argument captured=no
  [ "$1" != package ] || captured=yes
  for argument in "$@"; do [ "$argument" != --show-bin-path ] || captured=yes; done
  work=$(mktemp -d)
  for attempt in 1 2 3; do
    rm -f "$work/status"
    if [ "$1" = test ]; then
      # (A copy of the output, to see whether the tests started; the status is always written,
      # and a missing one is a failure.)
      { status=0; swift "$@" 2>&1 || status=$?; echo "$status" >"$work/status"; } \
        | tee "$work/output" || true
      status=$(cat "$work/status" 2>/dev/null) || status=1
    elif [ "$captured" = yes ]; then
      status=0
      swift "$@" >"$work/output" || status=$?
    else
      status=0
      swift "$@" || status=$?
    fi
    case "$status" in
      132 | 133 | 134 | 135 | 136 | 139) ;;
      *) break ;;
    esac
    if [ "$1" = test ] && grep -q -e 'Test run started' -e "Test Suite '" "$work/output"; then
      echo "note: swift test died of signal $((status - 128)) after its tests started: not run" \
        "again (.ci/swiftpm.sh)" >&2
      break
    fi
    if [ "$attempt" -eq 3 ]; then
      echo "note: swift $1 died of signal $((status - 128)) a third time: giving up" \
        "(.ci/swiftpm.sh)" >&2
      break
    fi
    echo "note: swift $1 died of signal $((status - 128)) (SwiftPM's own process, not the" \
      "code: .ci/swiftpm.sh); attempt $attempt of 3, running it again" >&2
    swiftpm_wait_for_orphans
  done
  # (The folder goes whatever happens to the printing: a caller under `set -e` would leave it.)
  local printed=0
  if [ "$captured" = yes ]; then cat "$work/output" || printed=$?; fi
  rm -rf "$work"
  [ "$printed" -eq 0 ] || return "$printed"
  return "$status"
}

# Waits (a minute at most, or $SWIFTPM_ORPHAN_WAIT seconds) while compile or link jobs orphaned
# by a crashed SwiftPM (adopted by init) still run: a retry would build the same files beside
# them. (It cannot tell them from another build's orphans; without `pgrep`, or under a subreaper
# other than init, it finds none and does not wait.)
swiftpm_wait_for_orphans() {
  local waited=0
  while [ "$waited" -lt "${SWIFTPM_ORPHAN_WAIT:-60}" ] && pgrep -P 1 -x \
    'swift-frontend|swift-driver|swiftc|clang(\+\+)?|ld|ld\.(gold|lld|bfd)|ld64(\.lld)?' \
    >/dev/null 2>&1; do
    sleep 1
    waited=$((waited + 1))
  done
}

# Prints the retry notes `swiftpm` wrote into the log $1 (none: nothing).
swiftpm_notes() {
  grep -h '^note: swift [a-z]* died of signal' "$1" || true
}

# Shows that `swiftpm` retries only what it should, with a stand-in `swift` on PATH that crashes
# (as SwiftPM did), fails as a build error does, or is killed. Fails (exit 1) if not.
swiftpm_self_test() {
  local fake status entry plan subcommand expected calls
  fake=$(mktemp -d)
  # The stand-in: its calls counted in a file; $SWIFTPM_FAKE_PLAN says, per call, what it does
  # (no core file: it would land in the folder CI copies).
  cat >"$fake/swift" <<'STANDIN'
#!/usr/bin/env bash
ulimit -c 0
calls=$(($(cat "$SWIFTPM_FAKE_CALLS" 2>/dev/null || echo 0) + 1))
echo "$calls" >"$SWIFTPM_FAKE_CALLS"
case $(cut -d, -f"$calls" <<<"$SWIFTPM_FAKE_PLAN") in
  crash) kill -SEGV $$ ;;
  abort) kill -ABRT $$ ;;
  kill) kill -KILL $$ ;;
  interrupt) exit 130 ;;
  error) exit 1 ;;
  started) echo "◇ Test run started."; kill -SEGV $$ ;;
  suite) echo "Test Suite 'All tests' started" >&2; kill -SEGV $$ ;;
  printed) echo "/half/printed"; kill -SEGV $$ ;;
  shown) echo "/the/bin/path" ;;
  *) exit 0 ;;
esac
STANDIN
  chmod +x "$fake/swift"
  # plan, subcommand, the status and the number of calls expected
  local entries=(
    "crash,ok|build|0|2"
    "crash,abort,ok|test|0|3"
    "crash,crash,crash,ok|build|139|3"
    "error,ok|build|1|1"
    "crash,error|package|1|2"
    "kill,ok|build|137|1"
    "interrupt,ok|test|130|1"
    "started,ok|test|139|1"
    "suite,ok|test|139|1"
    "ok|run|2|0"
  )
  for entry in "${entries[@]}"; do
    IFS='|' read -r plan subcommand expected calls <<<"$entry"
    rm -f "$fake/calls"
    status=0
    # (No wait for orphans: the stand-in leaves none, and another build's would only slow it.)
    PATH="$fake:$PATH" SWIFTPM_FAKE_PLAN=$plan SWIFTPM_FAKE_CALLS="$fake/calls" \
      SWIFTPM_ORPHAN_WAIT=0 swiftpm "$subcommand" >/dev/null 2>&1 || status=$?
    if [ "$status" -ne "$expected" ] || [ "$(cat "$fake/calls" 2>/dev/null || echo 0)" -ne "$calls" ]
    then
      echo "FAIL: swiftpm $subcommand on \"$plan\": status $status, $(cat "$fake/calls" 2>/dev/null \
        || echo 0) call(s); expected $expected, $calls" >&2
      rm -rf "$fake"
      return 1
    fi
  done
  # What a caller reads comes once, from the attempt that counts.
  local printed
  rm -f "$fake/calls"
  printed=$(PATH="$fake:$PATH" SWIFTPM_FAKE_PLAN=printed,shown SWIFTPM_FAKE_CALLS="$fake/calls" \
    SWIFTPM_ORPHAN_WAIT=0 swiftpm build --show-bin-path 2>/dev/null) || true
  if [ "$printed" != /the/bin/path ]; then
    echo "FAIL: swiftpm build --show-bin-path printed \"$printed\", not the last attempt's" \
      "/the/bin/path" >&2
    rm -rf "$fake"
    return 1
  fi
  rm -rf "$fake"
  echo "ok: swiftpm runs SwiftPM again after its own crash (twice at most), never after an" \
    "error, a kill, an interrupt, or once its tests started"
}
