#!/usr/bin/env bash
# Hygiene checks, run by hack/test.sh (and alone): go.mod is tidy,
# staticcheck finds nothing, and deadcode finds no function that neither
# the binary nor a test reaches. Each fails the run with its findings.
#
# The two tools are pinned and installed with `go install` into a cache
# directory outside the tree, so a fresh machine gets them on the first run
# (from the module proxy) and later runs start at once. staticcheck 0.8.x
# is the first release that understands Go 1.26.
set -euo pipefail
cd "$(dirname "$0")/.."

staticcheck_version=v0.8.2 # honnef.co/go/tools
deadcode_version=v0.52.0   # golang.org/x/tools

bin="${SANDBOX_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/sandbox-tools}"
install() { # install NAME MODULE/PATH VERSION
  if [ ! -x "$bin/$1-$3" ]; then
    echo "hygiene: installing $2@$3 into $bin"
    mkdir -p "$bin/tmp-$$"
    GOBIN="$bin/tmp-$$" go install "$2@$3"
    mv -f "$bin/tmp-$$/$1" "$bin/$1-$3"
    rmdir "$bin/tmp-$$"
  fi
}
install staticcheck honnef.co/go/tools/cmd/staticcheck "$staticcheck_version"
install deadcode golang.org/x/tools/cmd/deadcode "$deadcode_version"

status=0
echo "== go mod tidy -diff"
go mod tidy -diff || status=1

# Linux is the platform with the most code; functions used only on
# Windows carry a //lint:ignore naming where they are used.
echo "== staticcheck"
GOOS=linux "$bin/staticcheck-$staticcheck_version" ./... || status=1

echo "== deadcode -test"
out=$(GOOS=linux "$bin/deadcode-$deadcode_version" -test ./...)
if [ -n "$out" ]; then
  echo "$out"
  echo "deadcode: unreachable functions (delete them, or use them where they are documented)" >&2
  status=1
fi
# docs/DEVELOPING.md is the map a newcomer follows: every repository path
# it names in backquotes (a word with a slash or a file extension, not a
# pattern or a placeholder) must exist.
echo "== paths named by docs/DEVELOPING.md"
missing=$(grep -o '`[^` ]*`' docs/DEVELOPING.md | tr -d '`' |
  grep -E '^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?$' | grep -E '/|\.(go|sh|md|yaml|json|txt)$' |
  grep -v '^\.\./' | grep -v '^\.sandbox/' | sort -u |
  while read -r p; do [ -e "$p" ] || echo "$p"; done)
if [ -n "$missing" ]; then
  echo "$missing"
  echo "docs/DEVELOPING.md names paths that do not exist (update the map)" >&2
  status=1
fi

exit $status
