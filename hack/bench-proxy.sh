#!/usr/bin/env bash
# The egress proxy: allowed CONNECT tunnels per second on loopback.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== proxy: allowed CONNECT tunnels per second on loopback (target: >= 2,000/s)"
go test -run '^$' -bench 'ProxyConnect' -benchtime 2s ./launcher | grep -E '^Benchmark' |
  awk '{for (i = 1; i < NF; i++) if ($(i+1) == "tunnels/s") t = $i} END {printf "  %d tunnels/s  %s\n", t, (t >= 2000 ? "ok" : "NOT met")}'
