#!/usr/bin/env bash
# bench-agents-ab.sh: spawn with two or more sandbox binaries, interleaved,
# beside a plain `git worktree add` and a `sandbox run` start each round
# (what hack/bench-agents.sh compares spawn with), so that a change to
# spawn is measured against the binary before it in the same minutes:
# on a shared VM the same checkout takes 155 ms or 400 ms an hour apart.
#
#   hack/bench-agents-ab.sh ROUNDS BIN...   (root; the binaries' order
#                                           rotates from round to round)
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: hack/bench-agents-ab.sh ROUNDS BIN..." >&2
  exit 2
fi
rounds=$1; shift
bins=("$@")
work=$(mktemp -d /var/tmp/bench-agents-ab.XXXXXX)
root=$(cd "$(dirname "$0")/.." && pwd)
sb=${bins[0]}
# shellcheck source=hack/agents-bench-lib.sh
. "$root/hack/agents-bench-lib.sh"
trap agents_bench_cleanup EXIT
agents_bench_repo
plain() { echo "plain $(plain_ms "$1")"; }
run() { echo "run $(run_ms)"; }
spawn() { # binary name tag
  echo "$3 $(spawn_ms "$1" "$2")"
  "$1" agents stop "$2" --dir "$work/repo" >/dev/null
}
k=${#bins[@]}
for i in $(seq "$rounds"); do
  plain "$i"
  run
  for j in $(seq 0 $((k - 1))); do
    b=$(((i + j) % k))
    spawn "${bins[$b]}" "s$i-$b" "bin$b"
  done
done >"$work/out"
for key in plain run $(for b in $(seq 0 $((k - 1))); do echo "bin$b"; done); do
  label=$key
  case $key in bin*) label="${bins[${key#bin}]}" ;; esac
  printf "%-28s median %4s ms   each: %s\n" "$label" "$(awk -v k="$key" '$1 == k {print $2}' "$work/out" | median)" \
    "$(awk -v k="$key" '$1 == k {printf "%s ", $2}' "$work/out")"
done
