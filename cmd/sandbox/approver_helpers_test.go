package main

import (
	"bufio"
	"bytes"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// transcript collects a process's output and waits for text in it.
type transcript struct {
	mu  sync.Mutex
	buf bytes.Buffer
	ch  chan struct{}
}

func newTranscript(r io.Reader) *transcript {
	tr := &transcript{ch: make(chan struct{}, 1)}
	go func() {
		br := bufio.NewReader(r)
		for {
			b, err := br.ReadByte()
			if err != nil {
				return
			}
			tr.mu.Lock()
			tr.buf.WriteByte(b)
			tr.mu.Unlock()
			select {
			case tr.ch <- struct{}{}:
			default:
			}
		}
	}()
	return tr
}

func (tr *transcript) String() string {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return tr.buf.String()
}

// waitFor waits (bounded) until the transcript holds want n times.
func (tr *transcript) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for strings.Count(tr.String(), want) < n {
		select {
		case <-tr.ch:
		case <-deadline:
			t.Fatalf("timed out waiting for %q (x%d) in:\n%s", want, n, tr.String())
		}
	}
}

// started runs cmd with its output collected.
func started(t *testing.T, cmd *exec.Cmd) (*transcript, *transcript) {
	t.Helper()
	out, _ := cmd.StdoutPipe()
	errp, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return newTranscript(out), newTranscript(errp)
}

// exitOf waits for cmd and returns its exit code.
func exitOf(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v did not exit", cmd.Args)
	}
	return cmd.ProcessState.ExitCode()
}
