#!/usr/bin/env bash
# make fuzz: every fuzz target in the tree for FUZZTIME each (default 60s).
# A crasher is written under the package's testdata/fuzz/ by go test and
# fails the run; commit it as a regression seed once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${FUZZTIME:-60s}
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r file; do
  pkg=./$(dirname "${file#./}")
  for target in $(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file"); do
    echo "== $pkg $target ($fuzztime)"
    go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime 3s
  done
done
