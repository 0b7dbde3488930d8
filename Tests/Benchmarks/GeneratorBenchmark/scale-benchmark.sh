#!/usr/bin/env bash
# Scale benchmark: what N generated screens cost the build.
#
#   bash Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh [N ...]   (default: 10 50 200)
#
# For each N, in a fresh copy of the repository: generate N screens, then time a clean debug
# build of the app, then edit one generated reactor (a string in its `mutate`) and time the
# incremental rebuild. Both builds pass -debug-time-function-bodies, so the slowest function to
# type-check is reported too (the composition root grows with N). One line per N:
#
#   N=10 clean_build_s=... incremental_s=... incremental_ratio_to_first=...
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
    reactor="Modules/Reactor/Screen1View/Screen1ViewReactor.swift"
    [ -f "$reactor" ] || reactor=$(ls Modules/Reactor/Screen*View/*ViewReactor.swift | sed -n 1p)
    sed -i 's/Added \\"/Added the note \\"/' "$reactor"
    grep -q 'Added the note' "$reactor" || { echo "could not edit $reactor" >&2; exit 1; }
    incremental_start=$(date +%s%N)
    swift build --product Trellis "${flags[@]}" >"$scratch/incremental.log" 2>&1
    incremental_end=$(date +%s%N)
    # Lines read `<ms>ms<TAB><file>:<line>:<column><TAB><function>`; keep the time and place.
    slowest_in() {
      grep -hE '^[0-9.]+ms' "$scratch/clean.log" | grep -F "$1" | sort -rn \
        | awk -F'\t' -v root="$scratch/" \
          'NR == 1 { sub(/ms$/, "", $1); sub(root, "", $2); print $1, $2 }'
    }
    overall=$(slowest_in "")
    composition=$(slowest_in "App/CompositionRoot.swift")
    echo "$(seconds "$start" "$clean_end") $(seconds "$incremental_start" "$incremental_end")" \
      "${overall:-0 unknown} ${composition:-0 unknown}" >"$scratch/result"
  )
  read -r clean incremental slowest_ms slowest_where root_ms root_where <"$scratch/result"
  [ -n "$first_incremental" ] || first_incremental=$incremental
  ratio=$(awk -v a="$incremental" -v b="$first_incremental" 'BEGIN { printf "%.2f", a / b }')
  echo "N=$count clean_build_s=$clean incremental_s=$incremental incremental_ratio_to_first=$ratio" \
    "slowest_function_ms=$slowest_ms ($slowest_where)" \
    "composition_root_slowest_ms=$root_ms ($root_where)"
  rm -rf "$scratch"
done
