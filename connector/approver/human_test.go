package approver

import (
	"errors"
	"os"
	"runtime"
	"testing"
)

func TestCheckHuman(t *testing.T) {
	const self = "/usr/local/bin/sandbox"
	shell := Process{PID: 10, Comm: "bash", Exe: "/usr/bin/bash", Args: []string{"-bash"}, Env: []string{"HOME=/home/u"}}
	term := Process{PID: 5, Comm: "gnome-terminal-", Exe: "/usr/libexec/gnome-terminal-server"}
	ide := Process{PID: 6, Comm: "cursor", Exe: "/opt/cursor/cursor"} // a human's terminal in an editor
	tests := []struct {
		name     string
		env      []string
		ancestry []Process
		human    bool
	}{
		{"plain shell", []string{"HOME=/home/u", "CODEX_HOME=/home/u/.codex"}, []Process{shell, term}, true},
		{"terminal in an editor", nil, []Process{shell, ide}, true},
		{"unreadable ancestors", nil, []Process{{PID: 3}, {PID: 1, Comm: "systemd"}}, true},
		{"Claude Code's Bash tool", []string{"CLAUDECODE=1"}, []Process{shell}, false},
		{"Codex's sandbox", []string{"CODEX_SANDBOX=seatbelt"}, []Process{shell}, false},
		{"Gemini CLI", []string{"GEMINI_CLI=1"}, []Process{shell}, false},
		{"cursor-agent", []string{"CURSOR_AGENT=1"}, []Process{shell}, false},
		{"our jail", []string{"SANDBOX_JAIL=1"}, nil, false},
		{"marker scrubbed but still on an ancestor", nil,
			[]Process{{PID: 20, Comm: "make", Exe: "/usr/bin/make"}, {PID: 11, Comm: "bash", Env: []string{"CLAUDECODE=1"}}, shell}, false},
		{"claude above make", nil,
			[]Process{{PID: 20, Comm: "make"}, {PID: 12, Comm: "claude", Exe: "/home/u/.local/bin/claude"}, shell}, false},
		{"claude under node", nil,
			[]Process{{PID: 12, Comm: "node", Exe: "/usr/bin/node", Args: []string{"node", "/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js"}}}, false},
		{"codex renamed in comm", nil, []Process{{PID: 12, Comm: "MainThread", Exe: "/opt/codex/bin/codex"}}, false},
		{"npm run under gemini", nil, []Process{{PID: 21, Comm: "npm"}, {PID: 13, Comm: "node", Args: []string{"node", "/x/@google/gemini-cli/dist/index.js"}}}, false},
		{"the jail's init", nil, []Process{shell, {PID: 1, Comm: "exe", Args: []string{"sandbox-jail-init"}}}, false},
		{"an approved command (broker) above", nil, []Process{{PID: 30, Comm: "make"}, {PID: 29, Comm: "sandbox", Exe: self, Args: []string{"sandbox", "watch"}}, shell}, false},
		{"our hook above", nil, []Process{{PID: 29, Comm: "sandbox", Exe: self, Args: []string{"/usr/local/bin/sandbox", "hook", "claude"}}}, false},
		{"a shim above", nil, []Process{{PID: 29, Comm: "make", Exe: self, Args: []string{"/p/.sandbox/shims/make", "deploy"}}}, false},
		{"our binary with unreadable arguments", nil, []Process{{PID: 29, Comm: "sandbox", Exe: self}}, false},
		{"our binary doing something else", nil, []Process{{PID: 29, Comm: "sandbox.test", Exe: self, Args: []string{"sandbox.test", "-test.run=X"}}, shell}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckHuman(tc.env, tc.ancestry, self)
			if tc.human && err != nil {
				t.Errorf("refused a human: %v", err)
			}
			if !tc.human && !errors.Is(err, ErrNotHuman) {
				t.Errorf("not refused: %v", err)
			}
		})
	}
}

// TestAncestryReadsThisProcessTree: the walk reaches this test's parent
// with its name.
func TestAncestryReadsThisProcessTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the ancestry is read from /proc")
	}
	a := Ancestry(os.Getpid())
	if len(a) == 0 || a[0].PID != os.Getppid() || a[0].Comm == "" {
		t.Fatalf("ancestry = %+v; want the parent %d first", a, os.Getppid())
	}
}
