#!/usr/bin/env bash
# The whole test suite: vet for every OS we ship, then every test with the
# race detector. Under CI (CI=true) skips for a missing capability (root,
# Landlock, cgroups, Wine, a real client) become failures.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${CI:-}" = "true" ]; then
  export SANDBOX_STRICT_SKIPS=1
fi
export PATH="$PWD/hack/clients/node_modules/.bin:$PATH"

echo "== go vet (linux, windows, darwin)"
go vet ./...
GOOS=windows go vet ./...
GOOS=darwin CGO_ENABLED=0 go vet ./...

echo "== go test -race"
go test -race -timeout 40m ./...

bash hack/test-windows.sh   # Windows tests under Wine 8 (jail_windows, policy paths, broker, shims, launcher)
