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
rounds=$1; shift
bins=("$@")
work=$(mktemp -d /var/tmp/bench-agents-ab.XXXXXX)
export XDG_STATE_HOME=$work/state GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
sb=${bins[0]}
cleanup() {
  for a in $("$sb" agents list --dir "$work/repo" 2>/dev/null | awk '$3 == "running" {print $1}'); do
    "$sb" agents stop "$a" --dir "$work/repo" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
root=$(cd "$(dirname "$0")/.." && pwd)
git -C "$root" ls-files -z | (cd "$root" && tar --null -T - -cf -) | (mkdir -p "$work/repo" && tar -C "$work/repo" -xf -)
git -C "$work/repo" init -q && git -C "$work/repo" add -A && git -C "$work/repo" commit -qm base
"$sb" init "$work/repo" --claude >/dev/null
git -C "$work/repo" add -A && git -C "$work/repo" commit -qm sandbox
ms() { echo $((($2 - $1) / 1000000)); }
plain() {
  sync
  t0=$(date +%s%N)
  git -C "$work/repo" worktree add -q -b "plain-$1" "$work/plain-$1" HEAD
  echo "plain $(ms "$t0" "$(date +%s%N)")"
}
run() {
  sync
  t0=$(date +%s%N)
  "$sb" run --quiet --dir "$work/repo" -- sh -c 'date +%s%N >.run-first'
  echo "run $(ms "$t0" "$(cat "$work/repo/.run-first")")"
  rm -f "$work/repo/.run-first"
}
spawn() { # binary name tag
  sync
  t0=$(date +%s%N)
  "$1" agents spawn "$2" --dir "$work/repo" -- sh -c 'date +%s%N >.first; exec sleep 600' >"$work/spawn.err" 2>&1 || { cat "$work/spawn.err" >&2; exit 1; }
  wt=$work/repo/.sandbox/worktrees/$2
  for _ in $(seq 200); do [ -s "$wt/.first" ] && break; sleep 0.05; done
  echo "$3 $(ms "$t0" "$(cat "$wt/.first")")"
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
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for key in plain run $(for b in $(seq 0 $((k - 1))); do echo "bin$b"; done); do
  label=$key
  case $key in bin*) label="${bins[${key#bin}]}" ;; esac
  printf "%-28s median %4s ms   each: %s\n" "$label" "$(awk -v k="$key" '$1 == k {print $2}' "$work/out" | median)" \
    "$(awk -v k="$key" '$1 == k {printf "%s ", $2}' "$work/out")"
done
