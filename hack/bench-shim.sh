#!/usr/bin/env bash
# The shim's figure (issue 6): a shimmed, allowed `git status` against the
# real one (target: within 1.5 ms), measured with hack/timeit in one
# interleaved run. Two shim paths are shown: the fast path (a repeated
# allowed call: a C constructor execs git before the Go runtime starts)
# and the Go path (the first call of an argv, or SANDBOX_SHIM_NOFAST=1:
# the sandbox binary's start-up, the compiled policy, the decision).
# Needs `sandbox run` to install the shims (root, or the layers doctor
# reports). Run by hack/bench.sh (which sets $SANDBOX and $TIMEIT), or alone.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-300}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
[ -n "${SANDBOX:-}" ] || { CGO_ENABLED=${CGO_ENABLED:-1} go build -o "$tmp/sandbox" ./cmd/sandbox; SANDBOX=$tmp/sandbox; }
[ -n "${TIMEIT:-}" ] || { go build -o "$tmp/timeit" ./hack/timeit; TIMEIT=$tmp/timeit; }
export XDG_STATE_HOME=$tmp/state TMPDIR=$tmp   # the allow cache lives under $TMPDIR
proj=$tmp/project
mkdir -p "$proj/src" && cd "$proj"
git init -q . && for i in $(seq 200); do echo "line $i" >"src/f$i.txt"; done
git add -A && git -c user.name=b -c user.email=b@b commit -q -m files && echo change >>src/f1.txt
"$SANDBOX" init . >/dev/null
"$SANDBOX" run -- true 2>/dev/null ||
  "$SANDBOX" run --allow-degraded cgroup,landlock,seccomp,no_new_privs,mount,pid,network -- true >/dev/null 2>&1
real=$(command -v git)
shim=$proj/.sandbox/shims/git
[ -e "$shim" ] || { echo "bench-shim: sandbox run did not install the shims" >&2; exit 1; }
export SANDBOX_SHIM_DIR=$proj/.sandbox/shims PATH="$proj/.sandbox/shims:$PATH"
"$shim" status >/dev/null # the first call goes through Go and remembers the allow

median() { awk -v n="$1" '$0 ~ n { for (i = 1; i <= NF; i++) if ($i == "median") print $(i+1) }'; }
echo "== shims: an allowed \`git status\` through the shim vs the real git (target: <= +1.5 ms)"
out=$("$TIMEIT" -n "$runs" -- "$real" status -- "$shim" status -- env SANDBOX_SHIM_NOFAST=1 "$shim" status -- env "$real" status)
echo "$out" | sed 's/^/  /'
base=$(echo "$out" | sed -n 1p | median median)
fast=$(echo "$out" | sed -n 2p | median median)
slow=$(echo "$out" | sed -n 3p | median median)
envb=$(echo "$out" | sed -n 4p | median median)
awk -v b="$base" -v f="$fast" -v s="$slow" -v e="$envb" 'BEGIN {
  printf "  fast path (a repeated allowed call):  +%.2f ms over git status  %s\n", f - b, (f - b <= 1.5 ? "(within 1.5 ms)" : "(OVER 1.5 ms)")
  printf "  Go path (first call of an argv):      +%.2f ms over git status (both through env)\n", s - e
}'
awk -v b="$base" -v f="$fast" -v s="$slow" -v e="$envb" 'BEGIN {
  printf "shim: allowed git status +%.2f ms (fast path), +%.2f ms (Go path) over the real one (target <= 1.5 ms): %s, %s\n",
    f - b, s - e, (f - b <= 1.5 ? "met" : "NOT met"), (s - e <= 1.5 ? "met" : "NOT met")
}' >>"${BENCH_OUT:-$tmp}/summary"
