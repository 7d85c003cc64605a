package agents

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/launcher"
)

// TestResult is how the policy's agents.test command went in the agent's
// worktree.
type TestResult struct {
	Command string `json:"command"`
	Passed  bool   `json:"passed"`
	Code    int    `json:"code"`
	// Tail is the end of its output (stdout and stderr as they came),
	// at most tailKeep bytes.
	Tail string `json:"tail,omitempty"`
	// Err says why it did not run (no jail here, a timeout, ...).
	Err string `json:"error,omitempty"`
}

// TestTimeout bounds the test command: a land waits for it before anyone
// is asked.
const TestTimeout = 15 * time.Minute

// tailKeep is how much of the test's output is kept.
const tailKeep = 8 << 10

// TestRunner runs the test command with `sh -c` in the agent's worktree,
// inside the jail `sandbox run` builds for that folder (the worktree is
// the project: writable, its .sandbox and git's protected files
// read-only, the network closed: nothing passes the proxy), never on the
// trusted side. Where the jail cannot be built the test does not run, and
// the result says so. stateDir is the per-user state dir the jail hides.
func TestRunner(stateDir string) func(ctx context.Context, worktree, command string) TestResult {
	return func(ctx context.Context, worktree, command string) TestResult {
		res := TestResult{Command: command}
		f, err := folder.New(worktree)
		if err != nil {
			res.Err = err.Error()
			return res
		}
		out := &tailBuffer{keep: tailKeep}
		ctx, cancel := context.WithTimeout(ctx, TestTimeout)
		defer cancel()
		r, err := launcher.Run(ctx, launcher.Options{
			Folder: f, Argv: []string{"/bin/sh", "-c", command}, Dir: f.Root, StateDir: stateDir,
			Agent: "-", CI: true, Quiet: true, Stdout: out, Stderr: out,
		})
		res.Tail = out.String()
		switch {
		case err != nil:
			res.Err = err.Error()
		case ctx.Err() != nil:
			res.Err = fmt.Sprintf("stopped after %s", TestTimeout)
		default:
			res.Code, res.Passed = r.Code, r.Code == 0
		}
		return res
	}
}

// tailBuffer keeps the last keep bytes written to it.
type tailBuffer struct {
	keep int

	mu  sync.Mutex
	buf []byte // guarded by mu
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.keep; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
