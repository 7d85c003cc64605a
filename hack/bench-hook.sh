#!/usr/bin/env bash
# The hook's figures (issue 4): `sandbox hook claude` answering an allowed
# Bash call, as a whole process, against /bin/true in the same run
# (target: median within 4x of /bin/true, peak RSS <= 20 MB).
# Run by hack/bench.sh (which sets SANDBOX and TIMEIT), or alone.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${SANDBOX:-}" ]; then
  SANDBOX=$tmp/sandbox
  make -s build BIN="$SANDBOX"
fi
if [ -z "${TIMEIT:-}" ]; then
  TIMEIT=$tmp/timeit
  go build -o "$TIMEIT" ./hack/timeit
fi
export XDG_STATE_HOME=$tmp/state
proj=$tmp/proj
mkdir -p "$proj"
"$SANDBOX" init "$proj" --claude >/dev/null
cat >"$tmp/event.json" <<JSON
{"session_id":"bench","transcript_path":"/dev/null","cwd":"$proj","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status --short","description":"see what changed"},"tool_use_id":"toolu_bench"}
JSON
answer=$(cd "$proj" && "$SANDBOX" hook claude <"$tmp/event.json")
case "$answer" in
  *'"permissionDecision":"allow"'*) ;;
  *) echo "bench-hook: expected an allow, got: $answer" >&2; exit 1 ;;
esac

echo "== hook: sandbox hook claude on an allowed Bash call vs /bin/true (target: ratio <= 4, maxrss <= 20480 KiB)"
cd "$proj"
res=$("$TIMEIT" -n 300 -stdin "$tmp/event.json" -- /bin/true -- "$SANDBOX" hook claude)
echo "$res"
echo "$res" | sed -n 2p | awk '{
    for (i = 1; i <= NF; i++) { if ($i == "median") m = $(i+1); if ($i == "maxrss") k = $(i+1) }
    r = substr($NF, 2)
    printf "hook: %.2f ms, x%.2f of /bin/true (target <= 4): %s; peak RSS %d KiB (target <= 20480): %s\n",
      m, r, (r <= 4 ? "met" : "NOT met"), k, (k <= 20480 ? "met" : "NOT met")
  }' | tee -a "${BENCH_OUT:-$tmp}/summary"
echo
echo "== hook: in-process cost of one allowed call (open the folder's policy, classify)"
cd - >/dev/null
go test -run '^$' -bench 'HookAllowed' -benchmem ./connector/hook/live | grep -E '^Benchmark' || true
