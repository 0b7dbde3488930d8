#!/usr/bin/env bash
# Scale benchmark: what N generated screens cost the build.
#
#   bash Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh [N ...]   (default: 10 50 200)
#
# For each N, in a fresh copy of the repository: generate N screens, then time a clean debug
# build of the app. A no-op build follows, not timed: the first build after a clean one may
# rebuild the build plugin and rerun it for every target in SwiftPM 6.x
# (swiftlang/swift-package-manager#6596), which is not what a developer editing a screen waits
# for. Then, three times, edit one generated reactor (a string in its `mutate`) and time the
# rebuild; the median is reported. Last, the app's sources are type-checked again with
# -debug-time-function-bodies, so the slowest function (the composition root, which grows with N)
# is reported without slowing the timed builds. One line per N:
#
#   N=10 clean_build_s=... incremental_s=... (median of 3: a b c) incremental_ratio_to_first=...
#        slowest_function_ms=... (file:line)
#
# The ratio compares each N's incremental rebuild with the first N's (run the smallest first).
# Extra `swift build` flags come from SCALE_BUILD_FLAGS, for example
# SCALE_BUILD_FLAGS="-Xswiftc -use-ld=lld" to link with lld instead of the default gold.
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$(pwd)
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(10 50 200)
read -r -a flags <<<"${SCALE_BUILD_FLAGS:-}"

swift build -c release --product trellis-gen >/dev/null
generator="$(swift build -c release --product trellis-gen --show-bin-path)/trellis-gen"
first_incremental=""

seconds() { awk -v start="$1" -v end="$2" 'BEGIN { printf "%.2f", (end - start) / 1e9 }'; }

# Builds the app in the current folder, its output in $1; on failure, shows the end of it.
build_app() {
  if ! swift build --product Trellis ${flags[@]+"${flags[@]}"} >"$1" 2>&1; then
    echo "the build failed ($1):" >&2
    tail -20 "$1" >&2
    exit 1
  fi
}

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
    build_app "$scratch/clean.log"
    clean_end=$(date +%s%N)
    build_app "$scratch/settle.log"
    reactor="Modules/Reactor/Screen1View/Screen1ViewReactor.swift"
    [ -f "$reactor" ] || reactor=$(ls Modules/Reactor/Screen*View/*ViewReactor.swift | sed -n 1p)
    incrementals=()
    for edit in 1 2 3; do
      # Each edit writes a different text, so every rebuild has a real change to compile.
      perl -pi -e 's/\.toast\("Added[^\\]*\\/.toast("Added e'"$edit"' \\/' "$reactor"
      grep -q "Added e$edit " "$reactor" || { echo "could not edit $reactor" >&2; exit 1; }
      incremental_start=$(date +%s%N)
      build_app "$scratch/incremental-$edit.log"
      incremental_end=$(date +%s%N)
      incrementals+=("$(seconds "$incremental_start" "$incremental_end")")
    done
    median=$(printf '%s\n' "${incrementals[@]}" | sort -n | sed -n 2p)
    # Lines read `<ms>ms<TAB><file>:<line>:<column><TAB><function>`; keep the time and place.
    swiftc -typecheck -swift-version 6 -module-name TypeCheckedApp -I .build/debug/Modules \
      -Xfrontend -debug-time-function-bodies App/*.swift >"$scratch/typecheck.log" 2>&1 \
      || { echo "type-checking App/ failed:" >&2; tail -20 "$scratch/typecheck.log" >&2; exit 1; }
    slowest=$(grep -E '^[0-9.]+ms' "$scratch/typecheck.log" | sort -rn \
      | awk -F'\t' 'NR == 1 { sub(/ms$/, "", $1); print $1, $2 }')
    echo "$(seconds "$start" "$clean_end") $median ${incrementals[*]} ${slowest:-0 unknown}" \
      >"$scratch/result"
  )
  read -r clean incremental first second third slowest_ms slowest_where <"$scratch/result"
  [ -n "$first_incremental" ] || first_incremental=$incremental
  ratio=$(awk -v a="$incremental" -v b="$first_incremental" 'BEGIN { printf "%.2f", a / b }')
  echo "N=$count clean_build_s=$clean incremental_s=$incremental (median of 3: $first $second $third)" \
    "incremental_ratio_to_first=$ratio slowest_function_ms=$slowest_ms ($slowest_where)"
  rm -rf "$scratch"
done
