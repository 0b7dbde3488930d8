#!/usr/bin/env bash
# A longer fuzz run of the LoopbackServer request reader than `swift test` does:
#   bash Tests/LoopbackServerTests/fuzz.sh [CASES] [ROUNDS]
# Each round uses a new seed (printed, so a failure can be replayed with TRELLIS_FUZZ_SEED).
set -euo pipefail
cd "$(dirname "$0")/../.."
cases=${1:-200000}
rounds=${2:-3}
swift build --build-tests
for round in $(seq 1 "$rounds"); do
  seed=$(( $(date +%s) + round * 7919 ))
  echo "round $round: $cases cases, TRELLIS_FUZZ_SEED=$seed"
  TRELLIS_FUZZ_CASES=$cases TRELLIS_FUZZ_SEED=$seed \
    swift test --skip-build --filter "RequestFuzzTests"
done
