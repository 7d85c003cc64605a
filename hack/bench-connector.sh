#!/usr/bin/env bash
# bench-connector.sh: what connector mode's jailing adds to an allowed Bash
# call (the hook's answer with updatedInput + the rewritten command's jail
# start and exit, the agent's own bash start excluded), against Codex's
# per-command sandbox (`codex sandbox -- /bin/true`, the native binary of
# hack/clients) and bubblewrap's start overhead, in one interleaved run.
#
#   hack/bench-connector.sh [ROUNDS]   (default 40; root for every layer;
#                                      $SANDBOX when set, else `make build`)
#
# Targets (issue 12): at most 1/5 of Codex's overhead, at most 2x
# bubblewrap's. The agent's command is /bin/true, the program bwrap and
# Codex start; the jail starts it without a shell (a simple command,
# shell.SimpleCommand). Bash's builtin `true` needs the shell in the jail:
# it is measured too, and printed, not judged.
set -euo pipefail
rounds=${1:-40}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/bench-connector.XXXXXX) # not /tmp: the jail's /tmp is its own
trap 'rm -rf "$work"' EXIT
command -v bwrap >/dev/null || { echo "bench-connector: bwrap is not installed" >&2; exit 1; }
if [ -n "${SANDBOX:-}" ]; then
  dd if="$SANDBOX" of="$work/sandbox" bs=1M status=none && chmod 755 "$work/sandbox"
else
  (cd "$root" && make -s build BIN="$work/sandbox")
fi
# Codex refuses to place its sandbox helper under a temporary directory
export XDG_STATE_HOME=$work/state CODEX_HOME=${HOME}/.cache/sandbox-bench-codex
mkdir -p "$work/project" "$CODEX_HOME"
"$work/sandbox" init "$work/project" --claude >/dev/null
codex=$(ls "$root"/hack/clients/node_modules/@openai/codex-linux-*/vendor/*/bin/codex 2>/dev/null | head -1 || true)

cat >"$work/bench.go" <<'GO'
// bench runs each command once per round, interleaved, and prints the
// median wall time of each, then the connector figure and its verdicts.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"time"
)

func main() {
	rounds, _ := strconv.Atoi(os.Args[1])
	sb, event, codex, hookURL, builtinEvent := os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[6]
	first := exec.Command(sb, "hook", "claude")
	first.Stdin, _ = os.Open(event)
	ans, err := first.Output()
	var a struct {
		HookSpecificOutput struct{ UpdatedInput struct{ Command string } }
	}
	if err != nil || json.Unmarshal(ans, &a) != nil || a.HookSpecificOutput.UpdatedInput.Command == "" {
		fmt.Fprintf(os.Stderr, "bench-connector: the hook did not rewrite the call: %v %s\n", err, ans)
		os.Exit(1)
	}
	cmds := [][]string{{"/bin/true"}, {"bash", "-c", "true"},
		{"bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-all", "--die-with-parent", "/bin/true"},
		{sb, "hook", "claude"}, {"bash", "-c", a.HookSpecificOutput.UpdatedInput.Command}}
	if codex != "" {
		cmds = append(cmds, []string{codex, "sandbox", "--", "/bin/true"})
	}
	// the hook server's path (init --claude-http): the hook is an HTTP
	// request (no process), and the rewritten command asks the server to
	// run it (no `sandbox run` process)
	evb, _ := os.ReadFile(event)
	post := func() ([]byte, error) { return postEvent(hookURL, evb) }
	sans, serr := post()
	var s struct {
		HookSpecificOutput struct{ UpdatedInput struct{ Command string } }
	}
	if serr != nil || json.Unmarshal(sans, &s) != nil || s.HookSpecificOutput.UpdatedInput.Command == "" {
		fmt.Fprintf(os.Stderr, "bench-connector: the hook server did not rewrite the call: %v %s\n", serr, sans)
		os.Exit(1)
	}
	httpAt := len(cmds)
	cmds = append(cmds, []string{"POST"}, []string{"bash", "-c", s.HookSpecificOutput.UpdatedInput.Command})
	// the same with bash's builtin `true`: the jail starts a shell for it
	bevb, _ := os.ReadFile(builtinEvent)
	bans, berr := postEvent(hookURL, bevb)
	var bs struct {
		HookSpecificOutput struct{ UpdatedInput struct{ Command string } }
	}
	if berr != nil || json.Unmarshal(bans, &bs) != nil || bs.HookSpecificOutput.UpdatedInput.Command == "" {
		fmt.Fprintf(os.Stderr, "bench-connector: the hook server did not rewrite the builtin call: %v %s\n", berr, bans)
		os.Exit(1)
	}
	cmds = append(cmds, []string{"bash", "-c", bs.HookSpecificOutput.UpdatedInput.Command})
	times := make([][]time.Duration, len(cmds))
	for r := 0; r < rounds+3; r++ {
		for i, c := range cmds {
			cmd := exec.Command(c[0], c[1:]...)
			if len(c) > 1 && c[1] == "hook" {
				f, _ := os.Open(event)
				cmd.Stdin = f
				defer f.Close()
			}
			start := time.Now()
			if c[0] == "POST" {
				if _, err := post(); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(1)
				}
			} else if out, err := cmd.CombinedOutput(); err != nil {
				fmt.Fprintf(os.Stderr, "%v: %v\n%s", c, err, out)
				os.Exit(1)
			}
			if r >= 3 {
				times[i] = append(times[i], time.Since(start))
			}
		}
	}
	ms := make([]float64, len(cmds))
	for i := range cmds {
		t := times[i]
		sort.Slice(t, func(a, b int) bool { return t[a] < t[b] })
		ms[i] = float64(t[len(t)/2].Microseconds()) / 1000
	}
	fmt.Printf("median of %d rounds (wall):\n", rounds)
	names := []string{"/bin/true", "bash -c true", "bwrap --unshare-all /bin/true", "sandbox hook claude (allowed, rewritten)", "bash -c <the rewritten true>"}
	if codex != "" {
		names = append(names, "codex sandbox -- /bin/true")
	}
	names = append(names, "hook server: POST the event (http hook)", "bash -c <the served /bin/true>", "bash -c <the served builtin true>")
	for i := range cmds {
		fmt.Printf("  %-42s %8.2f ms  x%.2f of /bin/true\n", names[i], ms[i], ms[i]/ms[0])
	}
	added := ms[3] + ms[4] - ms[1]
	bw := ms[2] - ms[0]
	fmt.Printf("connector: a jailed allowed Bash call adds %.2f ms: %.2fx bwrap's overhead (%.2f ms; target <= 2): %s",
		added, added/bw, bw, verdict(added <= 2*bw))
	if codex != "" {
		cx := ms[5] - ms[0]
		fmt.Printf("; %.2f of codex sandbox's (%.2f ms; target <= 0.2): %s", added/cx, cx, verdict(added <= cx/5))
	} else {
		fmt.Print("; codex sandbox not installed (npm ci --prefix hack/clients)")
	}
	fmt.Println()
	served := ms[httpAt] + ms[httpAt+1] - ms[1]
	fmt.Printf("connector-http: with init --claude-http (hook server) a jailed allowed Bash call adds %.2f ms: %.2fx bwrap's overhead (target <= 2): %s",
		served, served/bw, verdict(served <= 2*bw))
	if codex != "" {
		cx := ms[5] - ms[0]
		fmt.Printf("; %.2f of codex sandbox's (target <= 0.2): %s", served/cx, verdict(served <= cx/5))
	}
	fmt.Println()
	builtin := ms[httpAt] + ms[httpAt+2] - ms[1]
	fmt.Printf("connector-http-builtin: the same for bash's builtin true (the jail starts a shell for it) adds %.2f ms: %.2fx bwrap's overhead (not a target)\n",
		builtin, builtin/bw)
}

func postEvent(url string, ev []byte) ([]byte, error) {
	cl := http.Client{Transport: &http.Transport{DisableKeepAlives: true}} // a connection per call, as a new agent request
	resp, err := cl.Post(url, "application/json", bytes.NewReader(ev))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	return io.ReadAll(resp.Body)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
GO

cat >"$work/event.json" <<JSON
{"session_id":"bench","transcript_path":"/dev/null","cwd":"$work/project","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"/bin/true","description":"nothing"},"tool_use_id":"toolu_bench"}
JSON
sed 's|"command":"/bin/true"|"command":"true"|' "$work/event.json" >"$work/event-builtin.json"
port=$(( 20000 + RANDOM % 10000 ))
"$work/sandbox" hookd --dir "$work/project" --port "$port" 2>"$work/hookd.log" &
hookd=$!
trap 'kill $hookd 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break; sleep 0.05; done
echo "== connector: an allowed Bash call jailed (hook + jail start + exit) vs bwrap and codex sandbox"
cd "$work/project"
go run "$work/bench.go" "$rounds" "$work/sandbox" "$work/event.json" "$codex" "http://127.0.0.1:$port/hook/claude" "$work/event-builtin.json" | tee "$work/out"
grep -c 'hookd: ran' "$work/hookd.log" | sed 's/^/commands the hook server ran: /'
grep '^connector' "$work/out" >>"${BENCH_OUT:-$work}/summary"
