//go:build windows

package broker_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// batchRoot is a project holding echo.bat, which prints its first
// argument.
func batchRoot(t *testing.T) (root, bat string) {
	t.Helper()
	root = testenv.TempDir(t)
	bat = filepath.Join(root, "echo.bat")
	if err := os.WriteFile(bat, []byte("@echo off\r\necho ARG=%~1\r\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, bat
}

func runBatch(t *testing.T, root string, argv ...string) (broker.Outcome, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return broker.Run(ctx, broker.Spec{Argv: argv, Root: root, Env: os.Environ(), Timeout: time.Minute})
}

func TestWindowsBatchSafeArgumentRuns(t *testing.T) {
	root, bat := batchRoot(t)
	oc, err := runBatch(t, root, bat, "release")
	if err != nil || !strings.Contains(oc.Stdout, "ARG=release") {
		t.Fatalf("Run = %+v, %v; want ARG=release", oc, err)
	}
}

// An argument that cmd.exe would re-parse is refused before anything
// starts. Started directly, the same argv runs a second command.
func TestWindowsBatchInjectionRefused(t *testing.T) {
	root, bat := batchRoot(t)
	for _, arg := range []string{"x&echo INJECTED", `"&echo INJECTED&"`, "x|echo INJECTED", "%COMSPEC%"} {
		t.Run(arg, func(t *testing.T) {
			oc, err := runBatch(t, root, bat, arg)
			if !errors.Is(err, broker.ErrShell) || !oc.Started.IsZero() || strings.Contains(oc.Stdout, "INJECTED") {
				t.Fatalf("Run = %+v, %v; want ErrShell and nothing started", oc, err)
			}
			out, _ := exec.Command(bat, arg).CombinedOutput()
			t.Logf("the same argv through exec.Command prints %q", out)
		})
	}
}

// The batch file is found through PATHEXT too: the resolved path is what
// is checked.
func TestWindowsBatchFoundOnPathRefused(t *testing.T) {
	root, _ := batchRoot(t)
	t.Setenv("PATH", root+string(os.PathListSeparator)+os.Getenv("PATH"))
	if _, err := runBatch(t, root, "echo", "x&echo INJECTED"); !errors.Is(err, broker.ErrShell) {
		t.Fatalf("Run(echo x&...) = %v, want ErrShell (echo.bat on PATH)", err)
	}
}
