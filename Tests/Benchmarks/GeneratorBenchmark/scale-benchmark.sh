#!/usr/bin/env bash
# Scale benchmark: what N generated screens cost the build.
#
#   bash Tests/Benchmarks/GeneratorBenchmark/scale-benchmark.sh [N ...]   (default: 10 50 200)
#
# For each N and each design, in a fresh copy of the repository: generate N screens, then time
# a clean debug build of the app. A no-op build follows, not timed: the first build after a clean
# one may rebuild the build plugin and rerun it for every target in SwiftPM 6.x
# (swiftlang/swift-package-manager#6596), which is not what a developer editing a screen waits
# for. Then three timed rebuilds after editing one generated reactor (a string in its `mutate`),
# three after editing one generated view (its heading), and three no-op builds; each reports its
# median and the three times (each edit is made a second after the previous build and each
# timed build is checked to have compiled it: see time_builds). For the module-per-screen
# design, the app's sources are also type-checked with -debug-time-function-bodies, so the
# slowest function (the composition root, which grows with N) is reported without slowing the
# timed builds. The designs
# (SCALE_DESIGNS, default all three): `modules`, a feature per generated screen, its reactor,
# its view and their tests each in a module (`<Name>Feature`, `<Name>FeatureFront`,
# `<Name>FeatureTests`: what `trellis-gen screen` writes); `grouped`, the screens in features of
# SCALE_SCREENS_PER_FEATURE (default 10) screens each, as a team groups the screens of one
# feature (`trellis-gen screen --feature`); and `one-module`, every screen's reactor in the
# `TrellisReactor` module, every view in `TrellisFront`, and their tests in `ReactorTests` and
# `FrontTests`. One line per N and design:
#
#   N=10 design=modules clean_build_s=... incremental_reactor_s=... (a b c)
#        incremental_view_s=... (a b c) noop_s=... (a b c) link_s=...
#        edit_and_test_s=... (a b c) edit_code_and_test_s=... (a b c) ratios_to_first_N:
#        reactor=... view=... noop=... slowest_function_ms=... (file:line)
#
# `edit_and_test_s` and `edit_code_and_test_s` are the inner loop: one reactor edited, then
# `swift test --filter` of its screen's reactor tests (see time_tests); the first adds a comment
# line, the second changes code, the toast's text, and the test that checks it.
#
# `link_s` is the app's link alone (median of three, its command taken from a verbose build);
# with the no-op build (SwiftPM's planning, which it redoes on every build) it splits an edit
# into planning, link, and the rest (compiling the edited module, the app's incremental check).
#
# The ratios compare each N with the first N of the same design (run the smallest first).
# Extra `swift build` flags come from SCALE_BUILD_FLAGS (the package links its tests and
# executables with lld on Linux already: the loop at the end of Package.swift).
set -euo pipefail
cd "$(dirname "$0")/../../.."
root=$(pwd)
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(10 50 200)
read -r -a flags <<<"${SCALE_BUILD_FLAGS:-}"

swift build -c release --product trellis-gen >/dev/null
generator="$(swift build -c release --product trellis-gen --show-bin-path)/trellis-gen"
declare -A first=()

seconds() { awk -v start="$1" -v end="$2" 'BEGIN { printf "%.2f", (end - start) / 1e9 }'; }

# Builds the app in the current folder, its output in $1; on failure, shows the end of it.
build_app() {
  if ! swift build --product Trellis ${flags[@]+"${flags[@]}"} >"$1" 2>&1; then
    echo "the build failed ($1):" >&2
    tail -20 "$1" >&2
    exit 1
  fi
}

# Times `swift build` of the app three times after `$2` (a command that edits the file `$3`, or
# `no_edit` for a no-op build); prints the median and the three times.
#
# Each edit waits a second first: the Swift driver of 6.3 on Linux misses an edit saved within
# about a second of the previous build's start (about one in three such edits here), and keeps
# missing it on later builds until the file changes again; such a build is fast because it
# compiles and links nothing. So each timed build must show the edited file compiled.
time_builds() {
  local label=$1 edit=$2 file=${3:-} times=() run
  for run in 1 2 3; do
    sleep 1
    "$edit" "$run"
    local begin end
    begin=$(date +%s%N)
    build_app "$PWD/$label-$run.log"
    end=$(date +%s%N)
    if [ -n "$file" ] && ! grep -q "Compiling .*$(basename "$file")" "$PWD/$label-$run.log"; then
      echo "the build after editing $file did not compile it ($PWD/$label-$run.log)" >&2
      exit 1
    fi
    times+=("$(seconds "$begin" "$end")")
  done
  echo "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p) ${times[*]}"
}

# Each edit writes a different text, so every rebuild has a real change to compile.
edit_reactor() {
  perl -pi -e 's/\.toast\("Added[^\\]*\\/.toast("Added e'"$1"' \\/' "$reactor"
  grep -q "Added e$1 " "$reactor" || { echo "could not edit $reactor" >&2; exit 1; }
}
edit_view() {
  EDIT=$1 perl -pi -e 's/\.heading\("[^"]*"\)/.heading("Edited $ENV{EDIT}")/' "$view"
  grep -q "Edited $1\"" "$view" || { echo "could not edit $view" >&2; exit 1; }
}
no_edit() { :; }
# An edit the screen's tests do not see (they check the toast's text): a line of its own.
edit_reactor_unseen() {
  printf '// edit %s\n' "$1" >>"$reactor"
}
# An edit to code and the test that checks it, as a team makes one: the toast's text in the
# reactor's `mutate` and in its reactor tests' expectation.
edit_reactor_and_test() {
  edit_reactor "$1"
  local tests
  tests=$(find Tests -name "$(basename "$reactor" .swift)Tests.swift" | head -1)
  perl -pi -e 's/\.toast\("Added[^\\]*\\"First/.toast("Added e'"$1"' \\"First/' "$tests"
  grep -q "Added e$1 " "$tests" || { echo "could not edit $tests" >&2; exit 1; }
}

# Times the inner loop a team lives in: an edit to one screen's reactor (`$1`, a function that
# makes the edit), then `swift test
# --filter` of that screen's reactor tests (the build of everything the tests need, its link,
# and the run), three times; prints the median and the three times. Each run must show the edited
# file compiled and its tests passed. (`swift test` builds the app's executables too: that is
# what the command costs.)
time_tests() {
  local edit=$1 suite times=() run
  suite="$(basename "$reactor" .swift)Tests"
  for run in 1 2 3; do
    sleep 1
    "$edit" "$run"
    local begin end
    begin=$(date +%s%N)
    if ! swift test --filter "$suite" ${flags[@]+"${flags[@]}"} >"$PWD/test-$run.log" 2>&1; then
      echo "the tests failed ($PWD/test-$run.log):" >&2
      tail -20 "$PWD/test-$run.log" >&2
      exit 1
    fi
    end=$(date +%s%N)
    grep -q "Compiling .*$(basename "$reactor")" "$PWD/test-$run.log" \
      || { echo "the test run after editing $reactor did not compile it" >&2; exit 1; }
    grep -Eq "Test run with [1-9][0-9]* tests? .*passed" "$PWD/test-$run.log" \
      || { echo "no test of $suite ran ($PWD/test-$run.log)" >&2; exit 1; }
    times+=("$(seconds "$begin" "$end")")
  done
  echo "$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p) ${times[*]}"
}

# Times the app's link alone, three times, after one more reactor edit: the link command is
# taken from a verbose build (not timed) and run again with another output file. Prints the
# median. What an edit costs besides the link and the no-op build's planning is compiling.
time_link() {
  sleep 1
  edit_reactor 9
  swift build --product Trellis -v ${flags[@]+"${flags[@]}"} >"$PWD/verbose.log" 2>&1 \
    || { echo "the verbose build failed ($PWD/verbose.log)" >&2; exit 1; }
  local command times=() run
  command=$(grep -e '-emit-executable' "$PWD/verbose.log" | grep -e '-module-name Trellis ' | tail -1)
  [ -n "$command" ] || { echo "no link command in $PWD/verbose.log" >&2; exit 1; }
  command=$(printf '%s' "$command" | sed -E 's| -o [^ ]+/Trellis | -o '"$PWD"'/link-probe |')
  for run in 1 2 3; do
    local begin end
    begin=$(date +%s%N)
    eval "$command" >"$PWD/link-$run.log" 2>&1 \
      || { echo "the link failed ($PWD/link-$run.log)" >&2; exit 1; }
    end=$(date +%s%N)
    times+=("$(seconds "$begin" "$end")")
  done
  printf '%s\n' "${times[@]}" | sort -n | sed -n 2p
}

# Turns the copy into the one-module design: each generated screen's reactor and provider move
# to `Modules/Reactor/<Name>View/` (the `TrellisReactor` module) and its view to
# `Modules/Front/Views/<Name>View/` (the `TrellisFront` module), as before feature modules; they
# leave `features` (the demo's own features stay), and what imported `<Name>Feature` or
# `<Name>FeatureFront` imports the
# layers' modules, which it already does.
one_module() {
  local feature name
  for feature in Modules/Features/Screen*/; do
    name=$(basename "$feature")
    mkdir -p "Modules/Reactor/${name}View" "Modules/Front/Views/${name}View"
    mv "$feature"Reactor/*.swift "Modules/Reactor/${name}View/"
    mv "$feature"Front/*.swift "Modules/Front/Views/${name}View/"
    perl -ni -e 'print unless /^import (TrellisFront|Screen\d+Feature)$/' \
      "Modules/Front/Views/${name}View/"*.swift
  done
  rm -rf Modules/Features/Screen*
  # Their tests join the layers' test modules, as before features had test modules.
  for feature in Tests/Features/Screen*/; do
    mv "$feature"*ViewReactorTests.swift Tests/ReactorTests/
    mv "$feature"*ViewControllerTests.swift Tests/FrontTests/
  done
  rm -rf Tests/Features/Screen*
  perl -ni -e 'print unless /^  "Screen\d+",?$/' Package.swift
  perl -ni -e 'print unless /^import Screen\d+Feature(Front)?$/' App/*.swift Tests/*/*.swift
  # A view now needs its reactor's module, `TrellisReactor`.
  perl -0pi -e 's/\A/import TrellisReactor\n/' Modules/Front/Views/Screen*View/*.swift
}

for count in "${counts[@]}"; do
  for design in ${SCALE_DESIGNS:-modules grouped one-module}; do
    scratch=$(mktemp -d)
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
      if [ -e "$file" ]; then cp --parents "$file" "$scratch/"; fi
    done
    (
      cd "$scratch"
      for index in $(seq -w 1 "$count"); do
        feature=()
        if [ "$design" = grouped ]; then
          feature=(--feature "group-$(((10#$index - 1) / ${SCALE_SCREENS_PER_FEATURE:-10} + 1))")
        fi
        "$generator" screen "screen-$index" --services user ${feature[@]+"${feature[@]}"} >/dev/null
      done
      [ "$design" != one-module ] || one_module
      start=$(date +%s%N)
      build_app "$scratch/clean.log"
      clean_end=$(date +%s%N)
      build_app "$scratch/settle.log"
      # One design has one of each pair of folders.
      reactor=$({ find Modules/Features Modules/Reactor -name 'Screen*ViewReactor.swift' \
        2>/dev/null || true; } | sort | sed -n 1p)
      view=$({ find Modules/Features Modules/Front -name 'Screen*ViewController.swift' \
        2>/dev/null || true; } | sort | sed -n 1p)
      [ -n "$reactor" ] && [ -n "$view" ] || { echo "no generated screen to edit" >&2; exit 1; }
      incremental=$(time_builds reactor edit_reactor "$reactor") || exit 1
      view_edit=$(time_builds view edit_view "$view") || exit 1
      noop=$(time_builds noop no_edit) || exit 1
      link=$(time_link) || exit 1
      # The toast's text as generated again (the edits above changed it; the tests check it),
      # then the tests' first build (not timed: every test module and the screens' tests).
      perl -pi -e 's/\.toast\("Added[^\\]*\\/.toast("Added \\/' "$reactor"
      grep -q '\.toast("Added \\"' "$reactor" || { echo "could not restore $reactor" >&2; exit 1; }
      swift build --build-tests ${flags[@]+"${flags[@]}"} >"$scratch/tests-build.log" 2>&1 \
        || { echo "the tests' build failed ($scratch/tests-build.log)" >&2; exit 1; }
      tests=$(time_tests edit_reactor_unseen) || exit 1
      code_tests=$(time_tests edit_reactor_and_test) || exit 1
      slowest="0 unknown"
      if [ "$design" = modules ]; then
        # Lines read `<ms>ms<TAB><file>:<line>:<column><TAB><function>`; keep the time and place.
        swiftc -typecheck -swift-version 6 -module-name TypeCheckedApp -I .build/debug/Modules \
          -Xfrontend -debug-time-function-bodies App/*.swift >"$scratch/typecheck.log" 2>&1 \
          || { echo "type-checking App/ failed:" >&2; tail -20 "$scratch/typecheck.log" >&2; exit 1; }
        slowest=$(grep -E '^[0-9.]+ms' "$scratch/typecheck.log" | sort -rn \
          | awk -F'\t' 'NR == 1 { sub(/ms$/, "", $1); print $1, $2 }')
      fi
      echo "$(seconds "$start" "$clean_end")|$incremental|$view_edit|$noop|$link|${slowest:-0 unknown}|$tests|$code_tests" \
        >"$scratch/result"
    )
    IFS='|' read -r clean incremental view_edit noop link slowest tests code_tests <"$scratch/result"
    key="$design"
    if [ -z "${first[$key]:-}" ]; then first[$key]="${incremental%% *} ${view_edit%% *} ${noop%% *}"; fi
    read -r first_incremental first_view first_noop <<<"${first[$key]}"
    ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
    echo "N=$count design=$design clean_build_s=$clean" \
      "incremental_reactor_s=${incremental%% *} (${incremental#* })" \
      "incremental_view_s=${view_edit%% *} (${view_edit#* })" \
      "noop_s=${noop%% *} (${noop#* }) link_s=$link" \
      "edit_and_test_s=${tests%% *} (${tests#* })" \
      "edit_code_and_test_s=${code_tests%% *} (${code_tests#* })" \
      "ratios_to_first_N: reactor=$(ratio "${incremental%% *}" "$first_incremental")" \
      "view=$(ratio "${view_edit%% *}" "$first_view") noop=$(ratio "${noop%% *}" "$first_noop")" \
      "slowest_function_ms=$slowest"
    rm -rf "$scratch"
  done
done
