#!/usr/bin/env bash
# The MCP server's figures (issue 5): a sandbox_status round trip over
# stdio after initialize (median, target <= 2 ms), measured both from Go
# (mcp-go client, the test binary as server) and against the real
# `sandbox mcp DIR` process from a minimal client; and the server at idle:
# CPU over 10 s (target: none) and resident memory (target: <= 25 MB).
# Run by hack/bench.sh (which sets $SANDBOX), or alone.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "${SANDBOX:-}" ]; then
  go build -o "$tmp/sandbox" ./cmd/sandbox
  SANDBOX=$tmp/sandbox
fi

echo "== mcp: sandbox_status round trip over stdio, Go client (target: median <= 2 ms)"
go test -run '^$' -bench 'Status' -benchtime 2000x ./connector/mcpserver |
  awk '/^BenchmarkStatus/ { name = ($1 ~ /Stdio/) ? "stdio, server process" : "in process";
         for (i = 1; i <= NF; i++) { if ($(i+1) == "ns/op") mean = $i / 1e6; if ($(i+1) == "ms-median") m = $i }
         printf "  %-22s median %6.3f ms   mean %6.3f ms\n", name, m, mean }'

echo
echo "== mcp: sandbox mcp DIR (the real binary): round trip and idle (targets: median <= 2 ms, no CPU, <= 25 MB RSS)"
export XDG_STATE_HOME=$tmp/state
mkdir -p "$tmp/proj"
"$SANDBOX" init "$tmp/proj" >/dev/null
python3 - "$SANDBOX" "$tmp/proj" <<'PY'
import json, os, subprocess, sys, time
exe, proj = sys.argv[1], sys.argv[2]
p = subprocess.Popen([exe, "mcp", proj], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
n = 0
def call(method, params=None, notify=False):
    global n
    msg = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        msg["params"] = params
    if not notify:
        n += 1
        msg["id"] = n
    p.stdin.write((json.dumps(msg) + "\n").encode()); p.stdin.flush()
    while not notify:
        r = json.loads(p.stdout.readline())
        if r.get("id") == n:
            if "error" in r or r["result"].get("isError"):
                sys.exit("error: %s" % r)
            return r
call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
call("notifications/initialized", notify=True)
times = []
for _ in range(2000):
    t = time.perf_counter()
    call("tools/call", {"name": "sandbox_status", "arguments": {}})
    times.append(time.perf_counter() - t)
times.sort()
print("  round trip             median %6.3f ms   p90 %6.3f ms   (%d calls)" % (times[len(times)//2]*1e3, times[len(times)*9//10]*1e3, len(times)))
def ticks():
    f = open("/proc/%d/stat" % p.pid).read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])
def kb(key):
    for line in open("/proc/%d/status" % p.pid):
        if line.startswith(key):
            return int(line.split()[1])
time.sleep(1)
before = ticks()
time.sleep(10)
after = ticks()
hz = os.sysconf("SC_CLK_TCK")
print("  idle over 10 s         CPU %d ms   RSS %.1f MB (peak %.1f MB)" % ((after - before) * 1000 // hz, kb("VmRSS:") / 1024, kb("VmHWM:") / 1024))
p.stdin.close()
p.wait(timeout=10)
PY
