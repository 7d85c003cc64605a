#!/usr/bin/env bash
# bench-agents.sh: `sandbox agents` (issue 14).
#  1. spawn to the agent's first instruction, against its two parts done
#     alone: `git worktree add` of the same repository and one
#     `sandbox run` start (target: at most their sum);
#  2. memory of our own processes per running agent (the supervisor, with
#     its proxy and bus in-process, and the jail's init; not the agent)
#     with 10 idle stub agents at once (target: at most 25 MB RSS). RSS
#     counts the binary's shared pages in every process; PSS shares them
#     out and Private is what one more agent costs: all three are printed.
#
#   hack/bench-agents.sh [SPAWNS]   (default 5; root for every layer;
#                                   $SANDBOX when set, else `make build`)
set -euo pipefail
spawns=${1:-5}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/bench-agents.XXXXXX)
# shellcheck source=hack/agents-bench-lib.sh
. "$root/hack/agents-bench-lib.sh"
trap agents_bench_cleanup EXIT
sb=$work/sandbox
if [ -n "${SANDBOX:-}" ]; then
  dd if="$SANDBOX" of="$sb" bs=1M status=none && chmod 755 "$sb"
else
  (cd "$root" && make -s build BIN="$sb")
fi
agents_bench_repo
files=$(git -C "$work/repo" ls-files | wc -l)

echo "== agents: spawn to the agent's first instruction ($files files; $spawns spawns)"
: >"$work/total" && : >"$work/wt" && : >"$work/run" && : >"$work/reported"
# Each measured step starts from a settled disk (sync) and none follows
# the removal of a worktree: a checkout right after 1,200 files were
# deleted ran 100-300 ms slower here, whichever step came second. The
# order of the plain checkout and the spawn alternates.
plain() { plain_ms "$1" >>"$work/wt"; } # i: a worktree of the same repository, alone
run() { run_ms >>"$work/run"; }           # a sandbox run start, alone
spawn() { # i: the whole, until the agent's first instruction has run
  spawn_ms "$sb" "s$1" >>"$work/total"
  sed -n 's/.*times: \(.*\)/\1/p' "$work/spawn.err" >>"$work/reported"
  "$sb" agents stop "s$1" --dir "$work/repo" >/dev/null
}
for i in $(seq "$spawns"); do
  if [ $((i % 2)) = 1 ]; then plain "$i"; run; spawn "$i"; else spawn "$i"; run; plain "$i"; fi
done
total=$(median <"$work/total")
wt=$(median <"$work/wt")
run=$(median <"$work/run")
echo "  spawn to first instruction (median)       ${total} ms"
echo "  git worktree add alone                     ${wt} ms"
echo "  sandbox run start to first instruction     ${run} ms"
echo "  each, in order: spawn $(paste -sd' ' "$work/total"); worktree add $(paste -sd' ' "$work/wt"); run $(paste -sd' ' "$work/run")"
echo "  spawn's own split (each spawn):            $(paste -sd';' "$work/reported")"
# each round's spawn against its own round's parts: the checkout's noise
# from one minute to the next cancels out of the difference
echo "  spawn - (worktree add + run), per round:   median $(paste "$work/total" "$work/wt" "$work/run" | awk '{print $1 - $2 - $3}' | median) ms"
awk -v t="$total" -v w="$wt" -v r="$run" 'BEGIN {
  printf "agents-spawn: %d ms to the first instruction, the parts alone %d + %d = %d ms (target <= their sum): %s\n",
    t, w, r, w + r, (t <= w + r ? "met" : "NOT met") }' | tee -a "${BENCH_OUT:-$work}/summary"

echo
echo "== agents: memory of our processes per running agent, 10 idle stub agents"
for i in $(seq 10); do
  "$sb" agents spawn "idle$i" --dir "$work/repo" -- sleep 600 >/dev/null 2>&1
done
# idle: the last agent's supervisor and init have settled (launcher's
# settled, 3 s; jailinit's Settled, 2 s) and given back the start-up code's
# mappings (internal/resident)
sleep 5
exe=$(readlink -f "$sb")
: >"$work/mem"
for pid in $("$sb" agents list --dir "$work/repo" | awk '$3 == "running" {print $NF}'); do
  # the supervisor and its descendants that are this binary (the init);
  # the agent's own processes are not ours
  procs=$pid
  for c in $(pgrep -P "$pid"); do procs="$procs $c"; done
  rss=0 pss=0 priv=0
  for p in $procs; do
    [ "$(readlink -f /proc/$p/exe 2>/dev/null)" = "$exe" ] || continue
    read -r r s v < <(awk '/^Rss:/{r=$2} /^Pss:/{s=$2} /^Private_(Clean|Dirty):/{v+=$2} END {print r, s, v}' "/proc/$p/smaps_rollup")
    rss=$((rss + r)) pss=$((pss + s)) priv=$((priv + v))
  done
  echo "$rss $pss $priv" >>"$work/mem"
done
n=$(wc -l <"$work/mem")
awk -v n="$n" '{r+=$1; s+=$2; v+=$3; if ($1>m) m=$1} END {
  printf "  %d agents running; per agent: RSS %.1f MB (max %.1f), PSS %.1f MB, Private %.1f MB\n", n, r/n/1024, m/1024, s/n/1024, v/n/1024
  printf "agents-memory: %.1f MB RSS per agent (target <= 25; PSS %.1f MB, Private %.1f MB): %s\n", r/n/1024, s/n/1024, v/n/1024, (r/n/1024 <= 25 ? "met" : "NOT met")
}' "$work/mem" | tee "$work/memout"
grep '^agents-memory' "$work/memout" >>"${BENCH_OUT:-$work}/summary"
if [ "$n" -ne 10 ]; then
  echo "bench-agents: $n of 10 agents running" >&2
  exit 1
fi
