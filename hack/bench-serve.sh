#!/usr/bin/env bash
# The dashboard under load (issue 8): `sandbox serve` with 1,000 pending
# requests across 10 folders and 100 connected WebSocket clients. Targets:
# RSS <= 60 MB; GET /api/requests?state=pending median <= 20 ms.
# Loopback only; every loop in hack/serveload is bounded. Run by
# hack/bench.sh (which sets $SANDBOX), or alone.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sandbox=${SANDBOX:-}
if [ -z "$sandbox" ]; then
  go build -o "$out/sandbox" ./cmd/sandbox
  sandbox=$out/sandbox
fi
go build -o "$out/serveload" ./hack/serveload
echo "== serve: 1,000 pending requests in 10 folders, 100 WebSocket clients (targets: RSS <= 60 MB, list median <= 20 ms)"
"$out/serveload" -sandbox "$sandbox" -folders 10 -per 100 -clients 100 -n 300
echo
echo "== serve: the listing handler alone (go test -bench, 1,000 pending in 10 folders)"
go test -run '^$' -bench 'ListPending' -benchtime 200x ./connector/serve | grep -E '^Benchmark' || true
