#!/usr/bin/env bash
# Runs us and the peers side by side and prints ratios. Each figure the
# issues name is printed with its target, and a summary of the start-up
# figures (issues 2, 4, 6) and of how often the human is asked (issue 13:
# hack/bench-prompts.sh) closes the run. Parts live in hack/bench-*.sh;
# each appends its verdict to $BENCH_OUT/summary. The sandbox binary is
# built as `make build` builds it (static, written with large writes).
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export BENCH_OUT=$out
make -s build BIN="$out/sandbox"
CGO_ENABLED=0 go build -o "$out/hello" ./hack/hello
go build -o "$out/timeit" ./hack/timeit
export SANDBOX="$out/sandbox" TIMEIT="$out/timeit" HELLO="$out/hello"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (shared: compare only within one run)"
echo

echo "== policy: sandbox check as a whole process vs a static Go hello-world (target: ratio <= 3)"
proj=$(mktemp -d)
export XDG_STATE_HOME=$proj/state
"$SANDBOX" init "$proj" >/dev/null
res=$("$TIMEIT" -n 300 -- "$HELLO" -- "$SANDBOX" check --dir "$proj" --script 'git status')
echo "$res"
ratio=$(echo "$res" | sed -n 2p | awk '{print substr($NF, 2)}')
awk -v r="$ratio" 'BEGIN { printf "check: x%.2f of hello-world (target <= 3): %s\n", r, (r <= 3 ? "met" : "NOT met") }' |
  tee -a "$out/summary"
echo
echo "== policy: classification throughput, one core (target: >= 50,000/s)"
go test -run '^$' -bench 'ShellTypical' -benchtime 2s -cpu 1 ./connector/policy | grep -E '^Benchmark|decisions/s' || true
rm -rf "$proj"

for part in hack/bench-*.sh; do
  [ -e "$part" ] || continue
  case $part in *-ab.sh) continue ;; esac # compares the binaries it is given: not a part
  echo
  if [ "$part" = hack/bench-shim.sh ]; then
    # bench-shim builds its own binary (cgo, for the shims' C fast path)
    # unless it is given one; it measures the Go path either way
    env -u SANDBOX bash "$part" || echo "bench: $part failed" >&2
  else
    bash "$part" || echo "bench: $part failed" >&2
  fi
done

echo
echo "== summary (load average now $(cut -d' ' -f1-3 /proc/loadavg))"
cat "$out/summary"
