#!/usr/bin/env bash
# The audit log's figures (issue 3): appends per second from one process
# with the documented durability (SyncEach: fdatasync before Append
# returns; docs/AUDIT.md), and verify throughput.
# Run by hack/bench.sh, or alone.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== audit: appends/s from one process (target: >= 2,000/s; SyncEach = fdatasync per append)"
go test -run '^$' -bench 'Append' -benchtime 2s ./audit |
  awk '/^BenchmarkAppend/ { for (i = 1; i <= NF; i++) if ($(i+1) == "appends/s") printf "  %-28s %10.0f appends/s\n", $1, $i }'
echo
echo "== audit: verify throughput (target: >= 200,000 records/s)"
go test -run '^$' -bench 'Verify' -benchtime 5x ./audit |
  awk '/^BenchmarkVerify/ { for (i = 1; i <= NF; i++) if ($(i+1) == "records/s") printf "  %-28s %10.0f records/s\n", $1, $i }'
