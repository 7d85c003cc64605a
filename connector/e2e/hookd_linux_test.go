package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/hookd"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// The real Claude Code with the hooks `init --claude-http` installs: the
// SessionStart hook starts the project's hook server, PreToolUse is
// answered over HTTP, and the allowed Bash command it rewrote runs in the
// project jail through the server (no `sandbox run` process), with its
// output, exit status and final directory reaching the model as they
// would unjailed; a denied call is refused; the server ends with Claude.
func TestClaudeHTTPHooksRunAllowedCommandsJailedThroughTheServer(t *testing.T) {
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("claude-http", map[string]string{"sub/keep.txt": "kept\n"})
	model := startModel(t,
		bashCall("echo served-marker; grep NoNewPrivs /proc/self/status; cat sub/keep.txt; echo to-stderr >&2; cd sub", "show the jail"),
		bashCall("pwd -P; ls no-such-file", "where am I"),
		bashCall("cat ~/.ssh/id_rsa_nothing; rm -rf /etc/hostname", "harm"),
	)
	e.runClaude(t, dir, model)

	var results []fakemodel.ToolResult
	for _, r := range model.MainRequests() {
		results = append(results, r.Results...)
	}
	if len(results) != 3 {
		t.Fatalf("the model received %d tool results, want 3: %+v", len(results), results)
	}
	first, second, third := results[0], results[1], results[2]
	mustContain(t, "the jailed call's result", first.Content, "served-marker", "NoNewPrivs:\t1", "kept", "to-stderr")
	if first.IsError {
		t.Errorf("the command succeeded but the model was told it failed: %+v", first)
	}
	if !strings.Contains(second.Content, filepath.Join(dir, "sub")) {
		t.Errorf("the `cd sub` did not persist to the next call: %+v", second)
	}
	if !second.IsError || !strings.Contains(second.Content, "no-such-file") {
		t.Errorf("the failing command's status or message did not reach the model: %+v", second)
	}
	if !third.IsError {
		t.Errorf("the harmful call was not refused: %+v", third)
	}
	port := hookd.Port(dir, os.Getuid())
	log := readFile(t, filepath.Join(e.state, "sandbox", "hookd-"+strconv.Itoa(port)+".log"))
	if n := strings.Count(log, "hookd: ran"); n != 2 {
		t.Errorf("%d commands ran through the hook server, want 2 (the others started a jail themselves?)\n%s", n, log)
	}
	// the server ends once the agent that started it has exited
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/health"
	testenv.WaitFor(t, "the hook server to end with Claude Code", func() bool {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
		}
		return err != nil
	})
}

// Under `sandbox run -- claude` the jail's network namespace has no hook
// server: the jail sees the settings with the command hooks instead
// (launcher/hookview.go), which ask the trusted side through the bus,
// and the allowed call runs as it does with `init --claude`.
func TestClaudeHTTPHooksWorkUnderSandboxRun(t *testing.T) {
	testenv.RequireRoot(t)
	e := newEnv(t)
	dir := e.project("claude-http", nil)
	settings := readFile(t, filepath.Join(dir, ".claude", "settings.json"))
	model := startModel(t, bashCall(`echo allowed-marker; grep NoNewPrivs /proc/self/status`, "show the jail"))
	addr := forward(t, "127.0.0.2", strings.TrimPrefix(model.URL, "http://"))
	e.approver(dir, func(queue.Summary) decision { return decision{reason: "not part of the test"} })
	out := e.runClaudeJailed(t, dir, "http://"+addr, addr)
	allowed := resultOf(t, model.MainRequests(), 1)
	mustContain(t, "the allowed call's result", allowed.Content, "allowed-marker", "NoNewPrivs:\t1")
	mustContain(t, "claude's answer", out, `"result":"finished"`)
	if got := readFile(t, filepath.Join(dir, ".claude", "settings.json")); got != settings {
		t.Errorf("the settings file changed on the host:\n%s", got)
	}
}

// The hook server keeps the folder's engine between calls while the
// policy's files stay as they were (store.Memo): a policy accepted while
// it runs decides the very next call, and so does a later one, once the
// server has kept the new engine.
func TestHookServerFollowsThePolicyItKeeps(t *testing.T) {
	e := newEnv(t)
	dir := e.project("claude-http", nil)
	port := 20000 + int(time.Now().UnixNano()%10000)
	cmd := exec.Command(sandboxBin, "hookd", "--dir", dir, "--port", strconv.Itoa(port))
	cmd.Env = e.vars()
	var logb strings.Builder
	cmd.Stderr = &logb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	testenv.WaitFor(t, "the hook server", func() bool {
		resp, err := http.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	decide := func(script string) string {
		t.Helper()
		ev, _ := json.Marshal(preEvent(dir, "Bash", map[string]any{"command": script}))
		resp, err := http.Post(base+"/hook/claude", "application/json", bytes.NewReader(ev))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var a struct {
			Out struct {
				Decision string         `json:"permissionDecision"`
				Updated  map[string]any `json:"updatedInput"`
			} `json:"hookSpecificOutput"`
		}
		b, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(b, &a); err != nil {
			t.Fatalf("answer %q: %v", b, err)
		}
		if a.Out.Decision == "allow" && a.Out.Updated != nil {
			return "allow"
		}
		return a.Out.Decision + string(b)
	}
	for i := range 3 { // the last ones are answered by the kept engine
		if got := decide("ls -la"); got != "allow" {
			t.Fatalf("call %d: ls -la: %s, want it allowed (rewritten into the jail)\n%s", i, got, logb.String())
		}
		time.Sleep(150 * time.Millisecond)
	}
	pol := readFile(t, filepath.Join(dir, ".sandbox", "policy.yaml"))
	i := strings.Index(pol, "\n  deny:\n")
	if i < 0 {
		t.Fatal("no shell deny list in the default policy")
	}
	i += len("\n  deny:\n")
	pol = pol[:i] + "    - {pattern: \"ls **\", reason: \"no listing today\"}\n" + pol[i:]
	if err := os.WriteFile(filepath.Join(dir, ".sandbox", "policy.yaml"), []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := decide("ls -la"); got != "allow" {
		t.Fatalf("an edit that is not accepted yet decided: %s", got)
	}
	e.mustSandbox("policy", "accept", "--dir", dir, "--yes")
	for i := range 3 {
		if got := decide("ls -la"); !strings.HasPrefix(got, "deny") || !strings.Contains(got, "no listing today") {
			t.Fatalf("call %d after the accept: %s, want the new deny", i, got)
		}
		time.Sleep(150 * time.Millisecond)
	}
}
