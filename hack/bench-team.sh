#!/usr/bin/env bash
# bench-team.sh: team mode's figures (issue 15), on loopback with the real
# nats-server: remote approval overhead (a request raised on a machine
# until a remote approver sees it; a remote decision until the execution
# starts there), 1,000 requests from 10 relays approved by 2 remote
# approvers (each exactly once; throughput), and the relay's memory
# serving 10 folders.
#
#   hack/bench-team.sh   ($SANDBOX when set, else `make build`)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/bench-team.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
cd "$root"

echo "== team: remote approval overhead on loopback (target: median <= 20 ms each)"
go test -run '^$' -bench 'TeamRemoteApproval' -benchtime 100x ./team/relay 2>/dev/null | grep -E '^Benchmark' | tee "$work/approval"
awk '/^Benchmark/ { for (i = 1; i <= NF; i++) { if ($(i+1) == "ms-to-visible") v = $i; if ($(i+1) == "ms-decision-to-start") s = $i }
  printf "team-approval: request visible to the remote approver %.2f ms, decision to execution start %.2f ms (target <= 20 each): %s\n",
    v, s, (v <= 20 && s <= 20 ? "met" : "NOT met") }' "$work/approval" | tee -a "${BENCH_OUT:-$work}/summary"

echo
echo "== team: 1,000 requests from 10 relays, 2 remote approvers (each executed exactly once)"
go test -run '^$' -bench 'TeamThroughput' -benchtime 1x ./team/relay 2>/dev/null | grep -E '^Benchmark' | tee "$work/tp"
awk '/^Benchmark/ { for (i = 1; i <= NF; i++) if ($(i+1) == "requests/s") r = $i
  printf "team-throughput: 1,000 requests from 10 relays, each executed once, %.0f requests/s\n", r }' "$work/tp" |
  tee -a "${BENCH_OUT:-$work}/summary"

echo
echo "== team: memory of one relay serving 10 folders (target: <= 30 MB RSS)"
sb=$work/sandbox
if [ -n "${SANDBOX:-}" ]; then cp "$SANDBOX" "$sb"; else make -s build BIN="$sb"; fi
go build -o "$work/natsd" ./hack/natsd
"$work/natsd" >"$work/url" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/url" ] && break; sleep 0.1; done
url=$(cat "$work/url")
export XDG_STATE_HOME=$work/state
dirs=()
for i in $(seq 10); do
  mkdir -p "$work/p$i"
  "$sb" init "$work/p$i" >/dev/null
  dirs+=("$work/p$i")
done
"$sb" relay "${dirs[@]}" --nats "$url" --org bench --host bench 2>"$work/relay.log" &
relay=$!
pids+=($relay)
for i in $(seq 10); do # a request each, published, so that every folder's path ran
  (cd "$work/p$i" && "$sb" request --wait 2s -- echo hi >/dev/null 2>&1 || true) &
done
wait_req() { for _ in $(seq 50); do sleep 0.1; done; }
wait_req
sleep 3
rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$relay/status")
hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$relay/status")
awk -v r="$rss" -v h="$hwm" 'BEGIN {
  printf "team-relay-memory: one relay, 10 folders: RSS %.1f MB (peak %.1f MB; target <= 30): %s\n", r/1024, h/1024, (r/1024 <= 30 ? "met" : "NOT met") }' |
  tee -a "${BENCH_OUT:-$work}/summary"
