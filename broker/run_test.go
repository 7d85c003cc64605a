//go:build unix

package broker_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/broker"
)

func TestRunSeparatesStreams(t *testing.T) {
	log := filepath.Join(t.TempDir(), "r.log")
	oc := mustRun(t, broker.Spec{Script: "echo out; echo err >&2; echo out2; exit 3", LogPath: log})
	if oc.Stdout != "out\nout2\n" || oc.Stderr != "err\n" {
		t.Errorf("stdout %q stderr %q", oc.Stdout, oc.Stderr)
	}
	if oc.ExitCode != 3 || oc.Signal != "" || oc.TimedOut {
		t.Errorf("outcome %+v", oc)
	}
	b, _ := os.ReadFile(log)
	for _, want := range []string{"out\n", "err\n", "out2\n"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("log %q lacks %q", b, want)
		}
	}
	if oc.Started.IsZero() || oc.Finished.Before(oc.Started) || oc.Duration < 0 {
		t.Errorf("times %v %v %v", oc.Started, oc.Finished, oc.Duration)
	}
}

func TestRunExitStatus(t *testing.T) {
	tests := []struct {
		name   string
		spec   broker.Spec
		code   int
		signal string
	}{
		{"zero", broker.Spec{Script: "exit 0"}, 0, ""},
		{"one", broker.Spec{Script: "exit 1"}, 1, ""},
		{"255", broker.Spec{Script: "exit 255"}, 255, ""},
		{"sh", broker.Spec{Shell: "sh", Script: "exit 7"}, 7, ""},
		{"argv false", broker.Spec{Argv: []string{"false"}}, 1, ""},
		{"argv absolute", broker.Spec{Argv: []string{"/bin/sh", "-c", "exit 4"}}, 4, ""},
		{"sigkill", broker.Spec{Script: "kill -KILL $$"}, 137, "SIGKILL"},
		{"sigterm", broker.Spec{Script: "kill -TERM $$"}, 143, "SIGTERM"},
		{"sigsegv", broker.Spec{Script: "kill -SEGV $$"}, 139, "SIGSEGV"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oc := mustRun(t, tc.spec)
			if oc.ExitCode != tc.code || oc.Signal != tc.signal {
				t.Errorf("got exit %d signal %q, want %d %q", oc.ExitCode, oc.Signal, tc.code, tc.signal)
			}
		})
	}
}

func TestRunStdin(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 64<<10) // 1 MiB, more than a pipe holds
	tests := []struct {
		name  string
		stdin []byte
		argv  []string
		want  string
	}{
		{"fed whole then EOF", []byte("hello\nworld"), []string{"cat"}, "hello\nworld"},
		{"nil is /dev/null", nil, []string{"cat"}, ""},
		{"empty is EOF", []byte{}, []string{"cat"}, ""},
		{"larger than a pipe", []byte(big), []string{"wc", "-c"}, "1048576\n"},
		{"unread by the child", []byte(big), []string{"true"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			oc := mustRun(t, broker.Spec{Argv: tc.argv, Stdin: tc.stdin})
			if strings.TrimLeft(oc.Stdout, " ") != tc.want || oc.ExitCode != 0 {
				t.Errorf("stdout %.40q exit %d, want %.40q", oc.Stdout, oc.ExitCode, tc.want)
			}
		})
	}
}

func TestRunArgvIsNotInterpretedByAShell(t *testing.T) {
	root := t.TempDir()
	args := []string{"$(touch pwned)", "`touch pwned`", ";", "touch", "pwned", "|", "&&", "*", "$HOME", "'\"", "a\nb"}
	oc := mustRun(t, broker.Spec{Root: root, Argv: append([]string{"printf", "[%s]"}, args...)})
	want := ""
	for _, a := range args {
		want += "[" + a + "]"
	}
	if oc.Stdout != want {
		t.Errorf("stdout %q, want %q", oc.Stdout, want)
	}
	if _, err := os.Lstat(filepath.Join(root, "pwned")); err == nil {
		t.Error("a shell interpreted the argv")
	}
}

func TestRunRefusesBadCommands(t *testing.T) {
	root := t.TempDir()
	evil := filepath.Join(root, "evil")
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho pwned\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		spec broker.Spec
		want error
	}{
		{"nothing", broker.Spec{}, broker.ErrSpec},
		{"both", broker.Spec{Script: "true", Argv: []string{"true"}}, broker.ErrSpec},
		{"empty argv0", broker.Spec{Argv: []string{""}}, broker.ErrSpec},
		{"unknown shell", broker.Spec{Script: "true", Shell: "fish"}, broker.ErrShell},
		{"shell path from the agent", broker.Spec{Script: "true", Shell: evil}, broker.ErrShell},
		{"not on PATH", broker.Spec{Argv: []string{"no-such-program-xyz"}}, broker.ErrNotFound},
		{"relative PATH entries skipped", broker.Spec{Argv: []string{"evil"}, Env: []string{"PATH=.:evil:"}}, broker.ErrNotFound},
		{"missing absolute", broker.Spec{Argv: []string{"/no/such/prog"}}, broker.ErrStart},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := tc.spec
			spec.Root = root
			oc, err := run(t, spec)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
			if !oc.Started.IsZero() || strings.Contains(oc.Stdout, "pwned") {
				t.Errorf("something ran: %+v", oc)
			}
		})
	}
}
