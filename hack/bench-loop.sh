#!/usr/bin/env bash
# The approver loop's figures (issue 3): the machine round trip (request
# written -> approver notices through file notification -> broker runs
# /bin/true -> the waiter has the result) beside running /bin/true directly,
# and `sandbox watch` at idle: CPU over 5 s and resident memory.
# Run by hack/bench.sh (which sets $SANDBOX), or alone.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'kill "${watch_pid:-}" 2>/dev/null || true; rm -rf "$tmp"' EXIT
if [ -z "${SANDBOX:-}" ]; then
  go build -o "$tmp/sandbox" ./cmd/sandbox
  SANDBOX=$tmp/sandbox
fi

echo "== approver: machine round trip, median (target: <= 15 ms)"
go test -run '^$' -bench 'RoundTrip|TrueDirect' -benchtime 500x ./connector/approver |
  awk '/^Benchmark(RoundTrip|TrueDirect)/ {
         name = ($1 ~ /RoundTrip/) ? "request -> approve -> /bin/true -> result" : "/bin/true run directly";
         for (i = 1; i <= NF; i++) { if ($(i+1) == "median-ms") m = $i; if ($(i+1) == "p90-ms") p = $i }
         printf "  %-45s median %7.2f ms   p90 %7.2f ms\n", name, m, p }'

echo
echo "== approver: sandbox watch idle (target: no CPU, <= 30 MB RSS)"
export XDG_STATE_HOME=$tmp/state
mkdir -p "$tmp/proj/.sandbox"
mkfifo "$tmp/keys"
"$SANDBOX" watch --plain "$tmp/proj" <"$tmp/keys" >/dev/null 2>&1 &
watch_pid=$!
exec 3>"$tmp/keys" # keep its input open and silent
sleep 1
ticks() { awk '{print $14 + $15}' "/proc/$watch_pid/stat"; }
hz=$(getconf CLK_TCK)
before=$(ticks)
sleep 5
after=$(ticks)
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$watch_pid/status")
printf "  CPU over 5 s idle: %d ms   RSS: %.1f MB\n" $(( (after - before) * 1000 / hz )) "$(echo "$rss / 1024" | bc -l)"
exec 3>&-
