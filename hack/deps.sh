#!/usr/bin/env bash
# Installs what the test suite needs on a Debian machine: Debian packages
# (only when running as root and only those missing) and the npm clients
# used by the real-client tests. Idempotent and quiet when nothing is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

debs=(
  libseccomp-dev   # cgo: github.com/seccomp/libseccomp-golang
  bubblewrap       # hack/bench.sh compares run mode with bwrap
  tmux             # terminal approver tests drive `sandbox watch` in a pty
  git              # shim and connector tests push to local bare repos
  curl             # jail tests reach the egress proxy with a real client
  wget             # the peers' jail suites (cmd/sandbox/run_peers_linux_test.go) try it too
  openssh-client   # ... and ssh
  chromium         # the dashboard's browser test (playwright-core drives Debian's chromium)
  wine64           # hack/test-windows.sh runs the Windows tests under Wine 8
  binutils-mingw-w64-x86-64 # as and ld build the forwarder DLL Go binaries need under Wine 8
)

missing=()
for p in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "deps: installing Debian packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "deps: missing Debian packages (run as root to install): ${missing[*]}" >&2
  fi
fi

# npm clients for the real-client tests (Claude Code, Codex, Gemini CLI, MCP Inspector,
# playwright-core): pinned in hack/clients/package-lock.json.
if [ -f hack/clients/package-lock.json ] && command -v npm >/dev/null; then
  if [ ! -d hack/clients/node_modules ] || [ hack/clients/package-lock.json -nt hack/clients/node_modules ]; then
    # npm install, not npm ci: the lock names an optional, Windows-only
    # dependency of vite that the registry does not serve, which npm ci
    # refuses and npm install skips. The lock still pins every version.
    echo "deps: npm install --prefix hack/clients (versions pinned by the lock)"
    npm install --prefix hack/clients --no-audit --no-fund --no-save --loglevel=error
    touch hack/clients/node_modules
  fi
fi

# natscli, which the team-mode tests use to read the streams as any NATS
# tool would (connector/e2e/team_test.go), built once into the tools cache
# that hack/hygiene.sh uses too; hack/test.sh puts it on PATH.
tools="${SANDBOX_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-tools}"
natscli_version=v0.5.0
if [ ! -x "$tools/natscli-$natscli_version/nats" ] && command -v go >/dev/null; then
  echo "deps: go install github.com/nats-io/natscli/nats@$natscli_version into $tools"
  mkdir -p "$tools/tmp-natscli-$$" "$tools/natscli-$natscli_version"
  GOBIN="$tools/tmp-natscli-$$" go install "github.com/nats-io/natscli/nats@$natscli_version"
  mv -f "$tools/tmp-natscli-$$/nats" "$tools/natscli-$natscli_version/nats"
  rmdir "$tools/tmp-natscli-$$"
fi
