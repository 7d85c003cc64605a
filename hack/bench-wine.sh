#!/usr/bin/env bash
# bench-wine.sh: start-up overhead of `sandbox run -- cmd /c exit 0` (the
# Job Object jail, the proxy, the shims, the bus) against starting
# `cmd /c exit 0` directly, with `sandbox version` (a bare start of the Go
# binary) beside them, all timed inside Wine by one Windows program,
# interleaved. These are WINE figures, not Windows ones: Wine's process
# start-up is not Windows', and Wine enforces no job limits.
#
#   hack/bench-wine.sh [ROUNDS]      (default 30; needs wine64 and mingw binutils)
#
# The lead's hack/bench.sh includes this part.
set -euo pipefail
rounds=${1:-30}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/hack/wine/prefix.sh"
if ! wine_find; then
  echo "bench-wine: skipped: $(wine_missing)"
  exit 0
fi
wine_ready
work=$(mktemp -d)
trap 'rm -rf "$work"; "${WINE%/*}/wineserver" -k 2>/dev/null || true' EXIT

(cd "$root" && GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$work/sandbox.exe" ./cmd/sandbox)
mkdir -p "$work/timeit" "$work/project/.sandbox"
cat >"$work/timeit/main.go" <<'GO'
// timeit runs each command once per round, interleaved, and prints the
// median and p90 wall time of each in microseconds.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

func main() {
	rounds, _ := strconv.Atoi(os.Args[1])
	cmds := os.Args[2:]
	times := make([][]time.Duration, len(cmds))
	for r := 0; r < rounds+3; r++ {
		for i, c := range cmds {
			f := strings.Fields(c)
			start := time.Now()
			if out, err := exec.Command(f[0], f[1:]...).CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n%s", c, err, out)
				os.Exit(1)
			}
			if r >= 3 { // warm-up rounds are not counted
				times[i] = append(times[i], time.Since(start))
			}
		}
	}
	for i, c := range cmds {
		slices.Sort(times[i])
		n := len(times[i])
		fmt.Printf("%d %d %s\n", times[i][n/2].Microseconds(), times[i][n*9/10].Microseconds(), c)
	}
}
GO
(cd "$work/timeit" && printf 'module timeit\n\ngo 1.22\n' >go.mod &&
  GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -o "$work/timeit.exe" .)

sbx="Z:${work//\//\\}\\sandbox.exe"
allow=cgroup,landlock,seccomp,no_new_privs,mount,network
cd "$work/project"
out=$("$WINE" "$work/timeit.exe" "$rounds" "cmd /c exit 0" "$sbx version" \
  "$sbx run --allow-degraded $allow -- cmd /c exit 0" 2>&1 </dev/null | tr -d '\r' | sed 's|Z:[^ ]*sandbox.exe|sandbox.exe|')
echo "== WINE $("$WINE" --version | sed 's/^wine-//'), not Windows: sandbox run -- cmd /c exit 0 vs cmd /c exit 0, $rounds interleaved rounds, timed inside Wine"
echo "$out" | awk '
  NF < 3 { print; next }
  { med[NR] = $1; p90[NR] = $2; $1 = ""; $2 = ""; name[NR] = substr($0, 3) }
  END {
    for (i = 1; i <= NR; i++) printf "  %8.1f ms median  %8.1f ms p90   %s\n", med[i] / 1000, p90[i] / 1000, name[i]
    if (NR != 3) exit
    printf "  overhead of sandbox run over cmd alone (Wine): %+.1f ms median (x%.1f)\n", (med[3] - med[1]) / 1000, med[3] / med[1]
    printf "  of which starting sandbox.exe itself (version): %.1f ms; jail, bus, shims and proxy: %+.1f ms\n", med[2] / 1000, (med[3] - med[2] - med[1]) / 1000
  }'
