#!/usr/bin/env bash
# How often the human is asked (issue 13), side by side with the policy
# of 2026-12-01 (before the jail's policy):
#   - the everyday corpus allowed, jailed and unjailed (the corpus test
#     prints its rates; targets >= 97% jailed, >= 85% unjailed);
#   - prompts per scripted session of the real Claude Code (the e2e
#     session test: ours vs the 2026-12-01 policy; target <= 3);
#   - the checkpoint's cost comes from hack/bench-checkpoint.sh when it
#     is there (bench.sh runs every part), else from the package's
#     benchmarks.
# Run by hack/bench.sh, or alone. The session needs root and the real
# Claude Code (hack/deps.sh); without them that figure says so.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
summary=${BENCH_OUT:-$tmp}/summary

echo "== prompts: everyday corpus allowed, jailed and unjailed (targets: >= 97% jailed, >= 85% unjailed)"
if ls connector/policy/corpus_test.go >/dev/null 2>&1; then
  go test -count=1 -run 'Corpus' -v ./connector/policy >"$tmp/corpus" 2>&1 || true
  # the corpus test logs "NAME: N of M allowed (P%, ...)" per engine
  grep -E '[0-9]+ of [0-9]+ allowed \(' "$tmp/corpus" | sed 's/^ *//; s/; not allowed:$//' | tee "$tmp/rates" || true
  if [ -s "$tmp/rates" ]; then
    sed 's/^[a-z_]*\.go:[0-9]*: //; s/^/corpus: /' "$tmp/rates" >>"$summary"
  else
    echo "corpus: the corpus test printed no rates" | tee -a "$summary"
  fi
else
  echo "corpus: no corpus test (connector/policy/corpus_test.go) here" | tee -a "$summary"
fi

echo
echo "== prompts: a scripted session of the real Claude Code (connector/e2e/testdata/session), ours vs the 2026-12-01 policy (target: <= 3)"
go test -count=1 -timeout 30m -run 'TestScriptedSessionAsksOnlyWhatMatters' -v ./connector/e2e >"$tmp/session" 2>&1 || true
grep -E 'scripted session|asked \(' "$tmp/session" | sed 's/^ *[a-z_]*\.go:[0-9]*: //' || true
line=$(grep -o 'BENCH session-prompts.*' "$tmp/session" | head -1 || true)
if [ -n "$line" ]; then
  echo "$line" | awk '{
      for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
      printf "session: %d tool calls, asked %d times (target <= 3): %s; the 2026-12-01 policy asked %d times\n",
        v["calls"], v["ours"], (v["ours"] <= 3 ? "met" : "NOT met"), v["before"]
    }' | tee -a "$summary"
else
  reason=$(grep -m1 -E -- '--- SKIP|SKIP:|skipping' -A1 "$tmp/session" | tail -1 | sed 's/^ *//' || true)
  echo "session: not measured (${reason:-see go test -run TestScriptedSessionAsksOnlyWhatMatters -v ./connector/e2e})" | tee -a "$summary"
fi

# The checkpoint's cost has a part of its own (hack/bench-checkpoint.sh,
# which bench.sh runs too); without it, the package's benchmarks stand in.
if [ ! -e hack/bench-checkpoint.sh ]; then
  echo
  echo "== prompts: checkpoint cost per allowed destructive command and disk use (target: <= 50 ms for one changed file in 10,000)"
  if [ -d connector/checkpoint ] && grep -qs '^func Benchmark' connector/checkpoint/*_test.go; then
    go test -run '^$' -bench . -benchmem ./connector/checkpoint | tee "$tmp/checkpoint" | grep -E '^Benchmark' || true
    grep -E '^Benchmark' "$tmp/checkpoint" | sed 's/^/checkpoint: /' >>"$summary"
  else
    echo "checkpoint: no checkpoint benchmark here" | tee -a "$summary"
  fi
fi
