//go:build linux

package shims_test

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/fakemodel"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// claudeClient finds the real Claude Code CLI (PATH, else hack/clients).
func claudeClient(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("claude"); err == nil {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "hack", "clients", "node_modules", ".bin", "claude")
	if _, err := os.Stat(p); err != nil {
		testenv.Skip(t, "claude is not installed (npm ci --prefix hack/clients)")
	}
	return p
}

// forward relays connections from a free port on host to target, so that
// the jail reaches a loopback server through the proxy: the jail's
// NO_PROXY holds 127.0.0.1, not 127.0.0.2.
func forward(t *testing.T, host, target string) string {
	t.Helper()
	ln, err := net.Listen("tcp4", host+":0")
	if err != nil {
		testenv.Skip(t, "no "+host+" here: "+err.Error())
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer up.Close()
				go func() { io.Copy(up, c); up.(*net.TCPConn).CloseWrite() }()
				io.Copy(c, up)
			}()
		}
	}()
	return ln.Addr().String()
}

// The real Claude Code CLI runs in the jail, reaches the fake model
// through the proxy (the policy allows its address), and its Bash `git
// push` goes through the shim to a (scripted) human: the model receives
// the push's real output.
func TestRunClaudeCodeInTheJail(t *testing.T) {
	claude := claudeClient(t)
	model, err := fakemodel.StartAnthropic(func(r *fakemodel.Request) fakemodel.Reply {
		if r.Turn == 0 {
			return fakemodel.Reply{Text: "Publishing.", ToolCalls: []fakemodel.ToolCall{{Name: "Bash",
				Input: map[string]any{"command": "git push origin HEAD:refs/heads/main", "description": "publish the branch"}}}}
		}
		return fakemodel.Reply{Text: "finished"}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { model.Close() })
	addr := forward(t, "127.0.0.2", strings.TrimPrefix(model.URL, "http://"))
	pol := strings.Replace(string(policy.DefaultYAML()), "network:\n  allow:\n", "network:\n  allow:\n    - \""+addr+"\"\n", 1)
	p := newRunProject(t, pol)
	var mu sync.Mutex
	var unexpected []string
	h := p.human(func(r *queue.Request) verdict {
		if r.Kind == queue.KindShell && r.Source == queue.SourceShim && len(r.Shell.Argv) > 1 && r.Shell.Argv[1] == "push" {
			return verdict{approve: true}
		}
		mu.Lock()
		unexpected = append(unexpected, queue.Summarize(r))
		mu.Unlock()
		return verdict{reason: "not part of the test"}
	})
	out, code := p.runEnv([]string{"ANTHROPIC_BASE_URL=http://" + addr, "ANTHROPIC_API_KEY=dummy",
		"CLAUDE_CONFIG_DIR=" + t.TempDir(), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "IS_SANDBOX=1"},
		nil, claude, "-p", "publish the branch", "--output-format", "json", "--allowedTools", "Bash")
	if code != 0 {
		t.Fatalf("sandbox run claude exited %d:\n%s", code, out)
	}
	var result *fakemodel.ToolResult
	for _, r := range model.MainRequests() {
		if r.Turn == 1 && len(r.Results) == 1 {
			result = &r.Results[0]
		}
	}
	if result == nil {
		t.Fatalf("the model never received the tool result (%d main requests):\n%s", len(model.MainRequests()), out)
	}
	mustContain(t, "the tool result the model received", result.Content, "[new branch]", "HEAD -> main")
	mustContain(t, "claude's answer", out, `"result":"finished"`)
	if refs := p.git("--git-dir", p.bare, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/main\n" {
		t.Errorf("bare repository refs %q, want main", refs)
	}
	if n := len(h.requests()); n-len(unexpected) != 1 {
		t.Errorf("%d requests reached the human, want the one push", n)
	}
	if len(unexpected) > 0 {
		t.Logf("other requests (denied): %q", unexpected)
	}
}
