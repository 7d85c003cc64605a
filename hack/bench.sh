#!/usr/bin/env bash
# Runs us and the peers side by side and prints ratios. Each figure the
# issues name is printed with its target. Parts live in hack/bench-*.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export BENCH_OUT=$out
go build -o "$out/sandbox" ./cmd/sandbox
CGO_ENABLED=0 go build -o "$out/hello" ./hack/hello
go build -o "$out/timeit" ./hack/timeit
export SANDBOX="$out/sandbox" TIMEIT="$out/timeit" HELLO="$out/hello"

echo "== policy: sandbox check as a whole process vs a static Go hello-world (target: ratio <= 3)"
proj=$(mktemp -d)
export XDG_STATE_HOME=$proj/state
"$SANDBOX" init "$proj" >/dev/null
"$TIMEIT" -n 300 -- "$HELLO" -- "$SANDBOX" check --dir "$proj" --script 'git status'
echo
echo "== policy: classification throughput, one core (target: >= 50,000/s)"
go test -run '^$' -bench 'ShellTypical' -benchtime 2s -cpu 1 ./connector/policy | grep -E '^Benchmark|decisions/s' || true

for part in hack/bench-*.sh; do
  [ -e "$part" ] || continue
  echo
  bash "$part"
done
rm -rf "$proj"
