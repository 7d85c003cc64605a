#!/usr/bin/env bash
# The whole test suite: vet for every OS we ship, the hygiene checks
# (hack/hygiene.sh), then every test with the race detector. Under CI
# (CI=true) skips for a missing capability (root, Landlock, cgroups, Wine,
# a real client) become failures.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${CI:-}" = "true" ]; then
  export SANDBOX_STRICT_SKIPS=1
fi
export PATH="$PWD/hack/clients/node_modules/.bin:$PATH"
# natscli (hack/deps.sh)
export PATH="${SANDBOX_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-tools}/natscli-v0.5.0:$PATH"

echo "== go vet (linux, windows, darwin)"
go vet ./...
GOOS=windows go vet ./...
GOOS=darwin CGO_ENABLED=0 go vet ./...

bash hack/hygiene.sh   # go mod tidy -diff, staticcheck, deadcode -test

echo "== go test -race"
# testsum prints each package's result, every failure in full, every skip
# with its reason, and "N passed, N failed, N skipped"; it fails a run that
# executed no test at all.
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
go build -o "$tools/testsum" ./hack/testsum
go test -race -json -timeout 40m ./... 2>&1 | "$tools/testsum"

bash hack/test-windows.sh   # Windows tests under Wine 8 (jail_windows, policy paths, broker, shims, launcher)
