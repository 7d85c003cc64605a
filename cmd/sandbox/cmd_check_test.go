package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/policy"
)

func TestCheckCLI(t *testing.T) {
	root := policyProject(t, string(policy.DefaultYAML()))
	if code, out, errw := runCLI(t, "policy", "accept", "--dir", root, "--yes"); code != 0 {
		t.Fatalf("accept: %d %s%s", code, out, errw)
	}
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"write in project", []string{"--write", "src/a.go"}, 0},
		{"write .sandbox", []string{"--write", ".sandbox/policy.yaml"}, 20},
		{"write outside", []string{"--write", "/etc/passwd"}, 10},
		{"read secret", []string{"--read", "~/.ssh/id_rsa"}, 10},
		{"url allowed", []string{"--url", "https://api.anthropic.com/v1/messages"}, 0},
		{"host:port", []string{"--url", "api.anthropic.com:443"}, 0},
		{"url other", []string{"--url", "https://example.com/"}, 10},
		{"url metadata", []string{"--url", "http://169.254.169.254/"}, 20},
		{"mcp", []string{"--mcp", "mcp__sandbox__run_privileged"}, 0},
		{"mcp other", []string{"--mcp", "mcp__github__x"}, 10},
		{"nothing", nil, 2},
		{"two inputs", []string{"--write", "a", "--read", "b"}, 2},
		{"argv without --", []string{"git", "status"}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"check", "--dir", root, "--cwd", root}, tc.args...)
			if code, out, errw := runCLI(t, args...); code != tc.code {
				t.Errorf("code %d, want %d\n%s%s", code, tc.code, out, errw)
			}
		})
	}
}

func TestCheckJSON(t *testing.T) {
	root := policyProject(t, string(policy.DefaultYAML()))
	runCLI(t, "policy", "accept", "--dir", root, "--yes")
	code, out, errw := runCLI(t, "check", "--dir", root, "--json", "--write", filepath.Join(root, ".sandbox", "x"))
	if code != 20 {
		t.Fatalf("code %d\n%s%s", code, out, errw)
	}
	var got struct {
		Decision string   `json:"decision"`
		Reasons  []string `json:"reasons"`
		Parts    []struct {
			Trigger, Subject, Decision, Rule, Reason string
		} `json:"parts"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Decision != "deny" || len(got.Reasons) == 0 || len(got.Parts) != 1 ||
		got.Parts[0].Rule != "builtin:self-protection" || got.Parts[0].Trigger != "write" {
		t.Errorf("unexpected JSON: %s", out)
	}
	if !strings.HasSuffix(out, "}\n") {
		t.Errorf("JSON not newline-terminated: %q", out)
	}
}

func TestCheckArgvIsNotRejoined(t *testing.T) {
	root := policyProject(t, string(policy.DefaultYAML()))
	runCLI(t, "policy", "accept", "--dir", root, "--yes")
	// As an argv this is one word "status; rm -rf /" given to git, not a
	// script: whatever the tier, it must not be decided as rm -rf /.
	code, out, errw := runCLI(t, "check", "--dir", root, "--json", "--", "git", "status; rm -rf /")
	if code == 20 || strings.Contains(out, `"rm -rf / **"`) {
		t.Errorf("argv was re-joined into a script: %d\n%s%s", code, out, errw)
	}
}

// TestCheckJailed: --jailed and --unjailed pick the policy a command is
// decided by, the output says which per part and names the effect that
// decided and why it asked; a jailed-only rule never allows unjailed.
func TestCheckJailed(t *testing.T) {
	root := policyProject(t, "version: 1\nshell:\n  allow:\n    - {pattern: \"node **\", jailed: true}\nwrite:\n  allow: [\"**\"]\n")
	if code, out, errw := runCLI(t, "policy", "accept", "--dir", root, "--yes"); code != 0 {
		t.Fatalf("accept: %d %s%s", code, out, errw)
	}
	base := []string{"check", "--dir", root, "--cwd", root}
	code, out, errw := runCLI(t, append(base, "--jailed", "--", "node", "x.js")...)
	if code != 0 || !strings.Contains(out, "[jailed]") || !strings.Contains(out, "effect: exec node x.js") || !strings.Contains(out, "jailed policy:") {
		t.Errorf("--jailed: code %d\n%s%s", code, out, errw)
	}
	code, out, errw = runCLI(t, append(base, "--unjailed", "--script", "node x.js")...)
	if code != 10 || !strings.Contains(out, "[unjailed]") || !strings.Contains(out, "why: asked because of shell node x.js") ||
		!strings.Contains(out, "unjailed policy:") {
		t.Errorf("--unjailed: code %d\n%s%s", code, out, errw)
	}
	code, out, _ = runCLI(t, append(base, "--json", "--unjailed", "--script", "mkdir -p build && node x.js")...)
	var got struct {
		Decision string `json:"decision"`
		Jailed   bool   `json:"jailed"`
		Parts    []struct {
			Effect string `json:"effect"`
			Jailed bool   `json:"jailed"`
			Rule   string `json:"rule"`
		} `json:"parts"`
		Why struct {
			Allow string `json:"allow"`
		} `json:"why"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil || code != 10 || got.Jailed {
		t.Fatalf("json: code %d, %v\n%s", code, err, out)
	}
	if got.Parts[0].Effect != "exec mkdir -p build" || got.Parts[0].Rule != "effects" || got.Why.Allow != `"node x.js"` {
		t.Errorf("json parts %+v, why %+v", got.Parts, got.Why)
	}
	if code, _, _ := runCLI(t, append(base, "--jailed", "--unjailed", "--script", "ls")...); code != 2 {
		t.Errorf("--jailed --unjailed: code %d, want 2", code)
	}
	code, out, _ = runCLI(t, append(base, "--script", "node x.js")...)
	if jailed := strings.Contains(out, "jailed policy:") && !strings.Contains(out, "unjailed policy:"); jailed != (code == 0) {
		t.Errorf("default: code %d but\n%s", code, out)
	}
}
