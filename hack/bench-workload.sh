#!/usr/bin/env bash
# bench-workload.sh: a syscall-heavy workload (loops of cat, find and git
# status in a small repository) inside `sandbox run` against the same
# workload under bubblewrap, interleaved. The jail's start is paid once
# per run, and measured apart (bench-connector.sh, bench-run.sh): the
# workload times itself inside each jail, so that what differs is what the
# jail costs each syscall (Landlock's path walks, the seccomp filter, the
# mount namespace, the cgroup), not the start. The whole command's time,
# start and exit included, is printed beside it.
#
#   hack/bench-workload.sh [ROUNDS] [LOOPS]   (defaults 5 and 40; root for every layer;
#                                             uses $SANDBOX when set, else `make build`)
#
# Target (issue "Close the boundary"): within 5% of bubblewrap.
set -euo pipefail
rounds=${1:-5}
loops=${2:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

command -v bwrap >/dev/null || { echo "bench-workload: bwrap is not installed (apt-get install bubblewrap)" >&2; exit 1; }
if [ -n "${SANDBOX:-}" ]; then
  dd if="$SANDBOX" of="$work/sandbox" bs=1M status=none && chmod 755 "$work/sandbox"
else
  (cd "$root" && make -s build BIN="$work/sandbox")
fi
export XDG_STATE_HOME=$work/state # never the real per-user state

# A small repository: 400 files in 20 directories, committed.
proj=$work/project
mkdir -p "$proj"
for d in $(seq 1 20); do
  mkdir -p "$proj/src/d$d"
  for f in $(seq 1 20); do echo "package d$d // $f" >"$proj/src/d$d/f$f.go"; done
done
git -C "$proj" init -q
git -C "$proj" add -A
git -C "$proj" -c user.name=b -c user.email=b@b commit -qm init
"$work/sandbox" init "$proj" >/dev/null

cat >"$proj/workload.sh" <<EOF # in the project: the jail has a /tmp of its own
set -e
start=\$(date +%s%N)
for i in \$(seq 1 $loops); do
  cat src/d1/*.go >/dev/null
  find . -name '*.go' -newer /etc/hostname >/dev/null
  /usr/bin/git status --porcelain >/dev/null
done
echo "workload-us \$(((\$(date +%s%N) - start) / 1000))"
EOF

cd "$proj"
jail=("$work/sandbox" run -- /bin/bash "$proj/workload.sh")
bwrap=(bwrap --bind / / --dev /dev --proc /proc --unshare-all --die-with-parent --chdir "$proj" /bin/bash "$proj/workload.sh")
"${jail[@]}" >/dev/null 2>&1 || { echo "bench-workload: the workload failed in the jail" >&2; exit 1; }
"${bwrap[@]}" >/dev/null 2>&1 || { echo "bench-workload: the workload failed under bwrap" >&2; exit 1; }
# one run: "WHOLE INNER" in ms, the command's wall time and the
# workload's own
once() {
  local s e inner
  s=$(date +%s%N)
  inner=$("$@" 2>/dev/null | sed -n 's/^workload-us //p')
  e=$(date +%s%N)
  [ -n "$inner" ] || { echo "bench-workload: no time from $1" >&2; exit 1; }
  echo "$(((e - s) / 1000000)) $((inner / 1000))"
}
jw=() ji=() bw=() bi=()
for r in $(seq 1 "$rounds"); do
  read -r w i < <(once "${jail[@]}") && jw+=("$w") ji+=("$i")
  read -r w i < <(once "${bwrap[@]}") && bw+=("$w") bi+=("$i")
done
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
j=$(median "${ji[@]}") b=$(median "${bi[@]}")
echo "median of $rounds rounds, $loops loops of cat + find + git status (workload / whole command, start and exit included):"
echo "  sandbox run   $j ms / $(median "${jw[@]}") ms"
echo "  bwrap         $b ms / $(median "${bw[@]}") ms"
awk -v j="$j" -v b="$b" -v jw="$(median "${jw[@]}")" -v bw="$(median "${bw[@]}")" 'BEGIN {
	printf "workload: sandbox run %.3fx of bwrap (target <= 1.05): %s (whole command %.3fx)\n", j / b, (j / b <= 1.05 ? "met" : "NOT met"), jw / bw
}' | tee -a "${BENCH_OUT:-$work}/summary"
