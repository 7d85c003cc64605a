# agents-bench-lib.sh: what hack/bench-agents.sh and hack/bench-agents-ab.sh
# share (sourced, not run). The caller sets $root (this repository), $work
# (a scratch dir under /var/tmp, which is the jail's own) and $sb (a
# sandbox binary). Each measured step starts from a settled disk (sync).

# agents_bench_cleanup stops the agents still running and removes $work.
agents_bench_cleanup() {
  for a in $("$sb" agents list --dir "$work/repo" 2>/dev/null | awk '$3 == "running" {print $1}'); do
    "$sb" agents stop "$a" --dir "$work/repo" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}

# agents_bench_repo makes $work/repo, a real repository's size (this
# one's tracked files), committed, with `sandbox init --claude` committed
# too, and points git and the per-user state at $work.
agents_bench_repo() {
  export XDG_STATE_HOME=$work/state GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
  export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
  git -C "$root" ls-files -z | (cd "$root" && tar --null -T - -cf -) | (mkdir -p "$work/repo" && tar -C "$work/repo" -xf -)
  git -C "$work/repo" init -q && git -C "$work/repo" add -A && git -C "$work/repo" commit -qm base
  "$sb" init "$work/repo" --claude >/dev/null
  git -C "$work/repo" add -A && git -C "$work/repo" commit -qm sandbox
}

ms() { echo $((($2 - $1) / 1000000)); }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

# plain_ms I: the ms of a plain `git worktree add` of the repository.
plain_ms() {
  sync
  local t0
  t0=$(date +%s%N)
  git -C "$work/repo" worktree add -q -b "plain-$1" "$work/plain-$1" HEAD
  ms "$t0" "$(date +%s%N)"
}

# run_ms: the ms from a `sandbox run` start to its command's first
# instruction.
run_ms() {
  sync
  local t0
  t0=$(date +%s%N)
  "$sb" run --quiet --dir "$work/repo" -- sh -c 'date +%s%N >.run-first'
  ms "$t0" "$(cat "$work/repo/.run-first")"
  rm -f "$work/repo/.run-first"
}

# spawn_ms BIN NAME: the ms from `BIN agents spawn NAME` to the agent's
# first instruction; spawn's own output is left in $work/spawn.err, and
# the agent runs on.
spawn_ms() {
  sync
  local t0 wt
  t0=$(date +%s%N)
  "$1" agents spawn "$2" --dir "$work/repo" -- sh -c 'date +%s%N >.first; exec sleep 600' >"$work/spawn.err" 2>&1 || {
    cat "$work/spawn.err" >&2
    exit 1
  }
  wt=$work/repo/.sandbox/worktrees/$2
  for _ in $(seq 200); do [ -s "$wt/.first" ] && break; sleep 0.05; done
  ms "$t0" "$(cat "$wt/.first")"
}
