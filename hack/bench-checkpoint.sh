#!/usr/bin/env bash
# Checkpoint figures (issue 13): the whole work tree of a 10,000-file
# project with one file changed (target <= 50 ms), beside the floor of
# listing and lstat-ing the same tree with nothing kept; and over the
# destructive commands of connector/checkpoint/testdata/destructive.txt (and
# of the policy's everyday corpus, once there) on
# a 2,000-file project, the median cost of one command's checkpoint and
# the store's growth per 1,000 commands. Run by hack/bench.sh, or alone.
set -euo pipefail
cd "$(dirname "$0")/.."
summary=${BENCH_OUT:+$BENCH_OUT/summary}
res=$(go test -run '^$' -bench 'Checkpoint10k|Walk10kBaseline|CheckpointCorpus' -benchtime 30x ./connector/checkpoint)
echo "== checkpoint: 10,000-file work tree, one file changed (target: <= 50 ms)"
echo "$res" | grep -E '^Benchmark'
ms=$(echo "$res" | awk '/^BenchmarkCheckpoint10k/ { print $3 / 1e6 }')
floor=$(echo "$res" | awk '/^BenchmarkWalk10kBaseline/ { print $3 / 1e6 }')
median=$(echo "$res" | awk '/^BenchmarkCheckpointCorpus/ { for (i = 1; i < NF; i++) if ($(i+1) == "ms-median/cmd") print $i }')
disk=$(echo "$res" | awk '/^BenchmarkCheckpointCorpus/ { for (i = 1; i < NF; i++) if ($(i+1) == "MiB/1000cmds") print $i }')
awk -v ms="$ms" -v floor="$floor" 'BEGIN { printf "checkpoint 10k: %.1f ms (lstat walk alone %.1f ms; target <= 50): %s\n", ms, floor, (ms <= 50 ? "met" : "NOT met") }' |
  tee -a "${summary:-/dev/null}"
echo "checkpoint per destructive command: median ${median} ms; disk ${disk} MiB per 1,000 commands" |
  tee -a "${summary:-/dev/null}"
