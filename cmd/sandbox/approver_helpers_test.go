package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
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
	eof chan struct{} // closed when the output has ended
}

func newTranscript(r io.Reader) *transcript {
	tr := &transcript{ch: make(chan struct{}, 1), eof: make(chan struct{})}
	go func() {
		defer close(tr.eof)
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

// drained waits (bounded) until the output has ended: once the process
// has exited, what it wrote last is then in the transcript.
func (tr *transcript) drained(t *testing.T) {
	t.Helper()
	select {
	case <-tr.eof:
	case <-time.After(10 * time.Second):
		t.Fatalf("the output did not end:\n%s", tr.String())
	}
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
	// pipes of our own, not StdoutPipe's: Wait closes those as soon as
	// the process has exited, and what it wrote last could be lost
	out, outW, err1 := os.Pipe()
	errp, errW, err2 := os.Pipe()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err := cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
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
