# Sourced by the CI scripts (`source .ci/swiftpm.sh`): `swiftpm build|test|package ARGS...` runs
# `swift build|test|package ARGS...`, and runs it again (twice at most) when SwiftPM's own
# process died of a signal. SwiftPM 6.3 on Linux sometimes crashes in libdispatch
# (`_dispatch_event_loop_drain`; swiftlang/swift#87033 reports the same crash): a build of this
# repository crashed so in CI, once in the layer check, before in the consumer's and the release
# builds. Such a crash says nothing of the code, so it is retried, and said so on stderr (a
# script that sends a command's output to a log shows the log's notes: `swiftpm_notes LOG`).
#
# What fails at once, as before: an error of the build (exit 1), a failing test, and a test
# binary that crashes (`swift test` exits 1 then: it reports the signal and fails). An interrupt
# or a stop asked for (130, 143) is not retried. `swift run` is not offered: it replaces itself
# with the app, whose crash would be taken for SwiftPM's; CI starts the built binary instead.
swiftpm() {
  case "${1:-}" in
    build | test | package) ;;
    *)
      echo "swiftpm: only build, test and package are run again after a crash, not '${1:-}'" >&2
      return 2
      ;;
  esac
  local status attempt
  for attempt in 1 2 3; do
    status=0
    swift "$@" || status=$?
    if [ "$status" -le 128 ] || [ "$status" -eq 130 ] || [ "$status" -eq 143 ]; then
      return "$status"
    fi
    echo "note: swift $1 died of signal $((status - 128)) (SwiftPM's own process, not the" \
      "code: .ci/swiftpm.sh); attempt $attempt of 3" >&2
  done
  return "$status"
}

# Prints the retry notes `swiftpm` wrote into the log $1 (none: nothing).
swiftpm_notes() {
  grep -h '^note: swift [a-z]* died of signal' "$1" || true
}

# Shows that `swiftpm` retries only what it should, with a stand-in `swift` on PATH that dies of
# SIGSEGV (as SwiftPM did) or fails as a build error does. Fails (exit 1) if not.
swiftpm_self_test() {
  local fake status
  fake=$(mktemp -d)
  # The stand-in: its calls counted in a file; $SWIFTPM_FAKE_PLAN says, per call, what it does.
  cat >"$fake/swift" <<'STANDIN'
#!/usr/bin/env bash
calls=$(($(cat "$SWIFTPM_FAKE_CALLS" 2>/dev/null || echo 0) + 1))
echo "$calls" >"$SWIFTPM_FAKE_CALLS"
case $(cut -d, -f"$calls" <<<"$SWIFTPM_FAKE_PLAN") in
  crash) kill -SEGV $$ ;;
  error) exit 1 ;;
  *) exit 0 ;;
esac
STANDIN
  chmod +x "$fake/swift"
  # plan, subcommand, the status and the number of calls expected
  local case cases=(
    "crash,ok|build|0|2"
    "crash,crash,ok|test|0|3"
    "crash,crash,crash,ok|build|139|3"
    "error,ok|build|1|1"
    "crash,error|package|1|2"
    "ok|run|2|0"
  )
  for case in "${cases[@]}"; do
    IFS='|' read -r plan subcommand expected calls <<<"$case"
    rm -f "$fake/calls"
    status=0
    PATH="$fake:$PATH" SWIFTPM_FAKE_PLAN=$plan SWIFTPM_FAKE_CALLS="$fake/calls" \
      swiftpm "$subcommand" 2>/dev/null || status=$?
    if [ "$status" -ne "$expected" ] || [ "$(cat "$fake/calls" 2>/dev/null || echo 0)" -ne "$calls" ]
    then
      echo "FAIL: swiftpm $subcommand on \"$plan\": status $status, $(cat "$fake/calls" 2>/dev/null \
        || echo 0) call(s); expected $expected, $calls" >&2
      rm -rf "$fake"
      return 1
    fi
  done
  rm -rf "$fake"
  echo "ok: swiftpm runs SwiftPM again after its own crash (twice at most), never after an error"
}
