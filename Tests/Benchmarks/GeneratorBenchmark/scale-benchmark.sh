#!/usr/bin/env bash
# Scale benchmark: what N generated screens cost the build.
#
#   bash Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh [N ...]   (default: 10 50 200)
#
# For each N, in a fresh copy of the repository: generate N screens, then time a clean debug
# build of the app. A no-op build follows, untimed for the ratio: the first build after a clean
# one rebuilds the build plugin and relinks its tool in SwiftPM 6.x (swiftlang/swift-package-manager
# #6596), which is not what a developer editing a screen waits for. Then, three times, edit one
# generated reactor (a string in its `mutate`) and time the incremental rebuild; the median is
# reported. Builds pass -debug-time-function-bodies, so the slowest function to type-check in the
# clean build is reported too (the composition root grows with N). One line per N:
#
#   N=10 clean_build_s=... incremental_s=... (median of 3: a b c) incremental_ratio_to_first=...
#        slowest_function_ms=... (file:line) composition_root_slowest_ms=... (file:line)
#
# The ratio compares each N's incremental rebuild with the first N's (run the smallest first).
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$(pwd)
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(10 50 200)

swift build -c release --product trellis-gen >/dev/null
generator="$(swift build -c release --product trellis-gen --show-bin-path)/trellis-gen"
flags=(-Xswiftc -Xfrontend -Xswiftc -debug-time-function-bodies)
first_incremental=""

seconds() { awk -v start="$1" -v end="$2" 'BEGIN { printf "%.1f", (end - start) / 1e9 }'; }

for count in "${counts[@]}"; do
  scratch=$(mktemp -d)
  git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    if [ -e "$file" ]; then cp --parents "$file" "$scratch/"; fi
  done
  (
    cd "$scratch"
    for index in $(seq -w 1 "$count"); do
      "$generator" screen "screen-$index" --services user >/dev/null
    done
    start=$(date +%s%N)
    swift build --product Trellis "${flags[@]}" >"$scratch/clean.log" 2>&1
    clean_end=$(date +%s%N)
    swift build --product Trellis "${flags[@]}" >"$scratch/settle.log" 2>&1
    reactor="Modules/Reactor/Screen1View/Screen1ViewReactor.swift"
    [ -f "$reactor" ] || reactor=$(ls Modules/Reactor/Screen*View/*ViewReactor.swift | sed -n 1p)
    incrementals=()
    for edit in 1 2 3; do
      # Each edit writes a different text, so every rebuild has a real change to compile.
      perl -pi -e 's/\.toast\("Added[^\\]*\\/.toast("Added e'"$edit"' \\/' "$reactor"
      grep -q "Added e$edit " "$reactor" || { echo "could not edit $reactor" >&2; exit 1; }
      incremental_start=$(date +%s%N)
      swift build --product Trellis "${flags[@]}" >"$scratch/incremental-$edit.log" 2>&1
      incremental_end=$(date +%s%N)
      incrementals+=("$(seconds "$incremental_start" "$incremental_end")")
    done
    median=$(printf '%s\n' "${incrementals[@]}" | sort -n | sed -n 2p)
    # Lines read `<ms>ms<TAB><file>:<line>:<column><TAB><function>`; keep the time and place.
    slowest_in() {
      grep -hE '^[0-9.]+ms' "$scratch/clean.log" | grep -F "$1" | sort -rn \
        | awk -F'\t' -v root="$scratch/" \
          'NR == 1 { sub(/ms$/, "", $1); sub(root, "", $2); print $1, $2 }'
    }
    overall=$(slowest_in "")
    composition=$(slowest_in "App/CompositionRoot.swift")
    echo "$(seconds "$start" "$clean_end") $median ${incrementals[*]}" \
      "${overall:-0 unknown} ${composition:-0 unknown}" >"$scratch/result"
  )
  read -r clean incremental first second third slowest_ms slowest_where root_ms root_where \
    <"$scratch/result"
  [ -n "$first_incremental" ] || first_incremental=$incremental
  ratio=$(awk -v a="$incremental" -v b="$first_incremental" 'BEGIN { printf "%.2f", a / b }')
  echo "N=$count clean_build_s=$clean incremental_s=$incremental (median of 3: $first $second $third)" \
    "incremental_ratio_to_first=$ratio" \
    "slowest_function_ms=$slowest_ms ($slowest_where)" \
    "composition_root_slowest_ms=$root_ms ($root_where)"
  rm -rf "$scratch"
done
