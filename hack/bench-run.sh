#!/usr/bin/env bash
# bench-run.sh: start-up overhead of `sandbox run -- /bin/true` (every layer
# the machine has) against bubblewrap, in one interleaved run.
#
#   hack/bench-run.sh [ROUNDS]      (default 60; needs root for every layer;
#                                   uses $SANDBOX when set, else `make build`)
#
# Prints the median wall time of /bin/true, of bwrap --unshare-all, of
# `sandbox run` without and with a --pids limit (a limit costs a cgroup v1
# join on hybrid machines), of `sandbox version` (the binary's start-up,
# which run pays twice), and the ratio of sandbox's overhead over
# /bin/true to bwrap's. The lead's hack/bench.sh includes this part; the
# in-process figure (no CLI start-up) is `go test -bench RunTrue ./launcher`.
set -euo pipefail
rounds=${1:-60}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v bwrap >/dev/null || { echo "bench-run: bwrap is not installed (apt-get install bubblewrap)" >&2; exit 1; }
if [ -n "${SANDBOX:-}" ]; then
  dd if="$SANDBOX" of="$work/sandbox" bs=1M status=none && chmod 755 "$work/sandbox" # as make build writes it
else
  (cd "$root" && make -s build BIN="$work/sandbox")
fi
mkdir -p "$work/project/.sandbox"
export XDG_STATE_HOME=$work/state # never the real per-user state

cat >"$work/timeit.go" <<'GO'
// timeit runs each command once per round, interleaved, and prints the
// median wall time of each.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"sort"
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
		sort.Slice(times[i], func(a, b int) bool { return times[i][a] < times[i][b] })
		fmt.Printf("%d %s\n", times[i][len(times[i])/2].Microseconds(), c)
	}
}
GO

cd "$work/project"
true_cmd="/bin/true"
bwrap_cmd="bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent /bin/true"
sandbox_cmd="$work/sandbox run -- /bin/true"
limits_cmd="$work/sandbox run --pids 1000 -- /bin/true"
start_cmd="$work/sandbox version"
"$work/sandbox" doctor 2>/dev/null | sed -n '/^jail/,$p' || true
go run "$work/timeit.go" "$rounds" "$true_cmd" "$bwrap_cmd" "$sandbox_cmd" "$limits_cmd" "$start_cmd" >"$work/medians"
awk -v rounds="$rounds" '
	{ us[NR] = $1 }
	END {
		printf "median of %d rounds (wall):\n", rounds
		printf "  /bin/true                          %8.2f ms\n", us[1] / 1000
		printf "  bwrap --unshare-all /bin/true      %8.2f ms  (overhead %.2f ms)\n", us[2] / 1000, (us[2] - us[1]) / 1000
		printf "  sandbox run -- /bin/true           %8.2f ms  (overhead %.2f ms)\n", us[3] / 1000, (us[3] - us[1]) / 1000
		printf "  sandbox run --pids 1000 /bin/true  %8.2f ms  (overhead %.2f ms)\n", us[4] / 1000, (us[4] - us[1]) / 1000
		printf "  sandbox version (one process start) %8.2f ms  (run pays it twice: supervisor and jail init)\n", us[5] / 1000
		printf "overhead ratio sandbox/bwrap: %.2f (limits: %.2f)\n", (us[3] - us[1]) / (us[2] - us[1]), (us[4] - us[1]) / (us[2] - us[1])
	}' "$work/medians"
awk '{ us[NR] = $1 } END {
		o = (us[3] - us[1]) / 1000; b = (us[2] - us[1]) / 1000
		printf "run: sandbox run -- /bin/true overhead %.2f ms vs bwrap %.2f ms (target <= bwrap): %s\n", o, b, (o <= b ? "met" : "NOT met")
	}' "$work/medians" | tee -a "${BENCH_OUT:-$work}/summary"
