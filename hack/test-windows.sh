#!/usr/bin/env bash
# test-windows.sh: cross-compiles the Windows tests and runs them under
# Wine 8 through hack/wine/go_windows_amd64_exec (which `go test` picks up
# from PATH for GOOS=windows): every test of jail_windows, and the Windows
# tests (TestWindows*) of the launcher, the broker, the shims and the
# policy's path normalisation. hack/test.sh runs it after the Linux suite.
#
# Without Wine it says so and exits 0; with SANDBOX_STRICT_SKIPS=1 (CI) a
# missing Wine is a failure. Wine enforces kill-on-close, TerminateJobObject,
# suspended start + assign + resume and the breakaway rules, which are
# asserted on every run; it accepts the memory and process limits without
# enforcing them, so those are asserted on real Windows only (the tests
# print "NOT CHECKED under Wine").
set -euo pipefail
cd "$(dirname "$0")/.."
. hack/wine/prefix.sh

if ! wine_find; then
  if [ "${SANDBOX_STRICT_SKIPS:-}" = 1 ]; then
    echo "test-windows: FAIL: $(wine_missing) (SANDBOX_STRICT_SKIPS=1)" >&2
    exit 1
  fi
  echo "test-windows: skipped: $(wine_missing)"
  exit 0
fi
echo "== Windows tests under $("$WINE" --version) (prefix $WINEPREFIX)"
wine_ready
trap '"${WINE%/*}/wineserver" -k 2>/dev/null || true' EXIT # end whatever a test leaked
# One wineserver for the whole run, kept until the trap above: by default it
# exits a few seconds after its last process, and a test binary that starts
# while it shuts down fails before running a test (exit 1, no output).
"${WINE%/*}/wineserver" -p

export PATH="$PWD/hack/wine:$PATH" GOOS=windows GOARCH=amd64 CGO_ENABLED=0
go vet ./jail_windows/... ./launcher/... ./broker/... ./shims/... ./connector/policy/... ./connector/testenv/...
go test -count=1 -timeout 10m ./jail_windows/...
go test -count=1 -timeout 10m -run '^TestWindows' ./launcher/ ./broker/ ./shims/ ./connector/policy/
