//go:build unix

package broker_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

func seq(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}

// TestRunTruncatesCapturesButLogsEverything: beyond MaxCapture a stream
// keeps head and tail around a mark; the log has every byte.
func TestRunTruncatesCapturesButLogsEverything(t *testing.T) {
	log := filepath.Join(t.TempDir(), "r.log")
	const max = 4096
	oc := mustRun(t, broker.Spec{Script: "seq 1 100000; echo small >&2", LogPath: log, MaxCapture: max})
	full := seq(1, 100000)
	if !oc.StdoutTruncated || oc.StderrTruncated {
		t.Errorf("truncated: stdout %v stderr %v", oc.StdoutTruncated, oc.StderrTruncated)
	}
	if len(oc.Stdout) > max || !strings.HasPrefix(oc.Stdout, "1\n2\n3\n") || !strings.HasSuffix(oc.Stdout, "99999\n100000\n") {
		t.Errorf("stdout (%d bytes) head %.20q tail %q", len(oc.Stdout), oc.Stdout, oc.Stdout[len(oc.Stdout)-20:])
	}
	mark := fmt.Sprintf("output truncated, %d bytes in all; the log has everything", len(full))
	if !strings.Contains(oc.Stdout, mark) {
		t.Errorf("no mark %q in stdout", mark)
	}
	if oc.StdoutBytes != int64(len(full)) || oc.Stderr != "small\n" {
		t.Errorf("stdout bytes %d, stderr %q", oc.StdoutBytes, oc.Stderr)
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// The streams interleave at chunk boundaries: take stderr's line out.
	if got := strings.Replace(string(b), "small\n", "", 1); got != full {
		t.Errorf("log has %d bytes, want %d", len(b), len(full)+len("small\n"))
	}
}

// TestRunStreamsWhileRunning: the log and OnOutput see output before the
// command ends.
func TestRunStreamsWhileRunning(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(t.TempDir(), "r.log")
	var mu sync.Mutex
	var seen []string
	done := make(chan struct{})
	var oc broker.Outcome
	var err error
	go func() {
		defer close(done)
		oc, err = broker.Run(context.Background(), broker.Spec{
			Root: root, LogPath: log, Timeout: time.Minute, Env: broker.Scrub(os.Environ(), nil),
			Script: "echo first; echo warn >&2; while [ ! -e go ]; do sleep 0.01; done; echo second",
			OnOutput: func(stream string, p []byte) {
				mu.Lock()
				seen = append(seen, stream+":"+string(p))
				mu.Unlock()
			},
		})
	}()
	testenv.WaitFor(t, "first line in the log", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Contains(string(b), "first\n") && strings.Contains(string(b), "warn\n")
	})
	select {
	case <-done:
		t.Fatal("Run ended before it was told to")
	default:
	}
	mu.Lock()
	live := strings.Join(seen, "")
	mu.Unlock()
	if !strings.Contains(live, "stdout:first\n") || !strings.Contains(live, "stderr:warn\n") {
		t.Errorf("OnOutput saw %q", live)
	}
	if err := os.WriteFile(filepath.Join(root, "go"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	<-done
	if err != nil || oc.Stdout != "first\nsecond\n" {
		t.Errorf("err %v stdout %q", err, oc.Stdout)
	}
}

// TestRunLogFileIsNeverReusedOrFollowed: an existing file or a planted link
// at the log path stops the run before anything starts.
func TestRunLogFileIsNeverReusedOrFollowed(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.log")
	dangling := filepath.Join(dir, "dangling.log")
	os.Symlink(victim, link)
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	for _, p := range []string{victim, link, dangling} {
		t.Run(filepath.Base(p), func(t *testing.T) {
			root := t.TempDir()
			oc, err := run(t, broker.Spec{Root: root, Script: "touch ran; echo pwned", LogPath: p})
			if !errors.Is(err, broker.ErrLog) {
				t.Fatalf("err %v, want ErrLog", err)
			}
			if !oc.Started.IsZero() {
				t.Error("started")
			}
			if _, err := os.Stat(filepath.Join(root, "ran")); err == nil {
				t.Error("command ran")
			}
		})
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("victim now %q", b)
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere")); err == nil {
		t.Error("dangling link followed")
	}
}

func TestRunLogsWhyItCouldNotStart(t *testing.T) {
	log := filepath.Join(t.TempDir(), "r.log")
	_, err := run(t, broker.Spec{Argv: []string{"/no/such/prog"}, LogPath: log})
	if !errors.Is(err, broker.ErrStart) {
		t.Fatalf("err %v", err)
	}
	if b, _ := os.ReadFile(log); !strings.HasPrefix(string(b), "sandbox: could not start") {
		t.Errorf("log %q", b)
	}
}

// TestRunLogIsPrivate: the log holds whatever the command printed, so
// only the user may read it, whatever the umask.
func TestRunLogIsPrivate(t *testing.T) {
	log := filepath.Join(t.TempDir(), "r.log")
	mustRun(t, broker.Spec{Script: "echo token", LogPath: log})
	fi, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("log mode %v, want 0600", fi.Mode().Perm())
	}
}
