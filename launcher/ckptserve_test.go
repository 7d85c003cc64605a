package launcher

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// ckptEnv is a project with a src/ tree, a secret outside it, and a
// checkpoint server for run "run-1" on a fixed clock.
type ckptEnv struct {
	f      folder.Folder
	st     *userstate.State
	s      *ckptServer
	secret string // a directory outside the project
	clock  time.Time
}

func newCkptEnv(t *testing.T) *ckptEnv {
	t.Helper()
	root := t.TempDir()
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Create(); err != nil {
		t.Fatal(err)
	}
	st, err := userstate.OpenDir(filepath.Join(t.TempDir(), "state"), true)
	if err != nil {
		t.Fatal(err)
	}
	e := &ckptEnv{f: f, st: st, secret: t.TempDir(), clock: time.Now()}
	write(t, filepath.Join(f.Root, "src", "main.go"), "package main\n")
	write(t, filepath.Join(e.secret, "id_rsa"), "SECRET KEY\n")
	e.s = newCkptServer(f, st, "run-1", slog.New(slog.DiscardHandler))
	e.s.now = func() time.Time { return e.clock }
	if err := e.s.prepare(); err != nil {
		t.Fatal(err)
	}
	return e
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// send writes a request file as the jailed hook does, without waiting.
func (e *ckptEnv) send(t *testing.T, r live.CkptRequest) {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.f.Tmp(), r.ID+live.CkptExt), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *ckptEnv) answer(t *testing.T, id string) *live.CkptAnswer {
	t.Helper()
	a, err := live.ReadCkptAnswer(filepath.Join(live.CkptAnswers(e.f), id+".json"))
	if err != nil {
		t.Fatalf("answer %s: %v", id, err)
	}
	return a
}

func (e *ckptEnv) store(t *testing.T) *checkpoint.Store {
	t.Helper()
	s, err := live.StoreFor(e.st, e.f.Root, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// kept lists every path any checkpoint of the store names (its targets).
func (e *ckptEnv) kept(t *testing.T) []string {
	t.Helper()
	list, _, err := e.store(t).List("")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, ck := range list {
		out = append(out, ck.Targets...)
	}
	return out
}

// TestCkptServerRoundTrip: the hook's own client gets a checkpoint of
// what `rm -rf src` deletes, and restore brings src back.
func TestCkptServerRoundTrip(t *testing.T) {
	e := newCkptEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.s.serve(ctx) }()
	defer func() { cancel(); <-done }()
	a, err := live.AskCheckpoint(context.Background(), e.f, live.CkptRequest{ID: queue.NewID(),
		RunSession: "run-1", Script: "rm -rf src", Cwd: e.f.Root, Session: "s1", ToolUseID: "t1", Tool: "Bash"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Checkpoint == "" || a.Files != 1 {
		t.Fatalf("answer %+v, want a checkpoint of one file", a)
	}
	ck, err := e.store(t).Get(a.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	if ck.Command != "rm -rf src" || ck.Session != "s1" || ck.ToolUseID != "t1" || strings.Join(ck.Targets, ",") != "src" {
		t.Errorf("record %+v", ck)
	}
	// a call that names nothing in the project is answered with no checkpoint
	a, err = live.AskCheckpoint(context.Background(), e.f, live.CkptRequest{ID: queue.NewID(),
		RunSession: "run-1", Script: "rm -f /tmp/x", Cwd: e.f.Root})
	if err != nil || a.Checkpoint != "" {
		t.Errorf("outside-only script: %+v, %v", a, err)
	}
}

// TestCkptServerKeepsOnlyProjectFiles: whatever the jail names (paths
// outside the project, a script writing there, a cwd outside, links in
// the project that lead out), nothing outside the project is read into
// the store.
func TestCkptServerKeepsOnlyProjectFiles(t *testing.T) {
	e := newCkptEnv(t)
	if runtime.GOOS != "windows" {
		if err := os.Symlink(e.secret, filepath.Join(e.f.Root, "out")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(e.secret, "id_rsa"), filepath.Join(e.f.Root, "key")); err != nil {
			t.Fatal(err)
		}
	}
	secretFile := filepath.Join(e.secret, "id_rsa")
	cases := []live.CkptRequest{
		{Paths: []string{secretFile, e.secret}},
		{Paths: []string{filepath.Join(e.f.Root, "..", filepath.Base(e.secret), "id_rsa")}},
		{Paths: []string{filepath.Join(e.f.Root, "out", "id_rsa"), filepath.Join(e.f.Root, "out")}},
		{Script: "rm -rf " + e.secret, Cwd: e.f.Root},
		{Script: "rm -rf id_rsa", Cwd: e.secret},
		{Script: "rm -rf out/id_rsa out/", Cwd: e.f.Root},
		{Script: "rm -f key", Cwd: e.f.Root},
		{Paths: []string{"relative/path", "../id_rsa"}},
	}
	for i, r := range cases {
		r.ID, r.RunSession = queue.NewID(), "run-1"
		e.send(t, r)
		e.s.scan()
		if a := e.answer(t, r.ID); a.Error != "" {
			t.Errorf("case %d: %+v", i, a)
		}
	}
	for _, target := range e.kept(t) {
		if target != "out" && target != "key" {
			t.Errorf("kept %q: not a path of the project the requests named", target)
		}
	}
	// the links themselves may be kept (as links); what they point at never is
	list, _, _ := e.store(t).List("")
	for _, ck := range list {
		if ck.Bytes > int64(len(e.secret)+len("/id_rsa")) {
			t.Errorf("checkpoint %s keeps %d bytes: more than a link", ck.ID, ck.Bytes)
		}
	}
}

// TestCkptServerRefusesBadRequests: a link, a directory, an oversized or malformed request, an id that does not match its
// name: answered with an error (the hook escalates), never a checkpoint.
func TestCkptServerRefusesBadRequests(t *testing.T) {
	e := newCkptEnv(t)
	id := func() string { return queue.NewID() }
	bad := map[string]func(t *testing.T, path string){
		"link": func(t *testing.T, path string) {
			good := filepath.Join(t.TempDir(), "req.json")
			data, _ := json.Marshal(live.CkptRequest{ID: strings.TrimSuffix(filepath.Base(path), live.CkptExt), RunSession: "run-1", Script: "rm -rf src", Cwd: e.f.Root})
			os.WriteFile(good, data, 0o644)
			if err := os.Symlink(good, path); err != nil {
				t.Skip(err)
			}
		},
		"directory": func(t *testing.T, path string) { os.Mkdir(path, 0o755) },
		"oversized": func(t *testing.T, path string) {
			os.WriteFile(path, []byte(`{"script":"`+strings.Repeat("a", live.MaxCkptRequest)+`"}`), 0o644)
		},
		"malformed": func(t *testing.T, path string) { os.WriteFile(path, []byte("{"), 0o644) },
		"other id": func(t *testing.T, path string) {
			data, _ := json.Marshal(live.CkptRequest{ID: queue.NewID(), RunSession: "run-1", Script: "rm -rf src", Cwd: e.f.Root})
			os.WriteFile(path, data, 0o644)
		},
		"relative cwd": func(t *testing.T, path string) {
			data, _ := json.Marshal(live.CkptRequest{ID: strings.TrimSuffix(filepath.Base(path), live.CkptExt), RunSession: "run-1", Script: "rm -rf src", Cwd: "."})
			os.WriteFile(path, data, 0o644)
		},
	}
	for name, plant := range bad {
		t.Run(name, func(t *testing.T) {
			rid := id()
			path := filepath.Join(e.f.Tmp(), rid+live.CkptExt)
			plant(t, path)
			e.s.scan()
			if a := e.answer(t, rid); a.Error == "" || a.Checkpoint != "" {
				t.Errorf("answer %+v, want an error", a)
			}
			if _, err := os.Lstat(path); err == nil {
				t.Errorf("request left in tmp/")
			}
		})
	}
	if k := e.kept(t); len(k) != 0 {
		t.Errorf("kept %v", k)
	}
}

// TestCkptServerFlood: a flood of requests is answered, but checkpoints
// beyond the burst are refused until the rate allows them again, and at
// most ckptScanMax requests are read per scan.
func TestCkptServerFlood(t *testing.T) {
	e := newCkptEnv(t)
	var ids []string
	for range ckptScanMax + 40 {
		r := live.CkptRequest{ID: queue.NewID(), RunSession: "run-1", Script: "rm -rf src", Cwd: e.f.Root}
		e.send(t, r)
		ids = append(ids, r.ID)
	}
	e.s.scan()
	kept, refused := 0, 0
	for _, id := range ids {
		a := e.answer(t, id)
		switch {
		case a.Checkpoint != "":
			kept++
		case a.Error != "":
			refused++
		}
	}
	if kept != ckptBurst || refused != len(ids)-ckptBurst {
		t.Errorf("kept %d, refused %d of %d; want %d kept", kept, refused, len(ids), ckptBurst)
	}
	if n := len(e.kept(t)); n != ckptBurst {
		t.Errorf("%d checkpoints in the store, want %d", n, ckptBurst)
	}
	// after a second, the rate lets ckptRate more through
	e.clock = e.clock.Add(time.Second)
	for range ckptRate + 1 {
		e.send(t, live.CkptRequest{ID: queue.NewID(), RunSession: "run-1", Script: "rm -rf src", Cwd: e.f.Root})
	}
	e.s.scan()
	if n := len(e.kept(t)); n != ckptBurst+ckptRate {
		t.Errorf("%d checkpoints after a second, want %d", n, ckptBurst+ckptRate)
	}
	// answers expire; the answers' directory is bounded
	e.clock = e.clock.Add(2 * ckptAnswerTTL)
	e.s.scan()
	if ents, _ := os.ReadDir(live.CkptAnswers(e.f)); len(ents) != 0 {
		t.Errorf("%d answers left after their time", len(ents))
	}
}

// TestCkptServerAnswersOnce: an answer is never replaced, and a request
// of another run is left to its own supervisor.
func TestCkptServerAnswersOnce(t *testing.T) {
	e := newCkptEnv(t)
	r := live.CkptRequest{ID: queue.NewID(), RunSession: "run-1", Script: "rm -rf src", Cwd: e.f.Root}
	e.send(t, r)
	e.s.scan()
	first := e.answer(t, r.ID)
	r.Script = "echo hi"
	e.send(t, r)
	e.s.scan()
	if again := e.answer(t, r.ID); *again != *first {
		t.Errorf("answer replaced: %+v, was %+v", again, first)
	}
	other := live.CkptRequest{ID: queue.NewID(), RunSession: "run-2", Script: "rm -rf src", Cwd: e.f.Root}
	e.send(t, other)
	e.s.scan()
	if _, err := os.Stat(filepath.Join(e.f.Tmp(), other.ID+live.CkptExt)); err != nil {
		t.Errorf("another run's request was taken: %v", err)
	}
	if _, err := os.Stat(filepath.Join(live.CkptAnswers(e.f), other.ID+".json")); err == nil {
		t.Errorf("another run's request was answered")
	}
}

// TestCkptSwappedRequest: the hook refuses an answer to bytes other than
// the ones it sent (the jail rewrote tmp/ID.ckpt before it was read).
func TestCkptSwappedRequest(t *testing.T) {
	e := newCkptEnv(t)
	r := live.CkptRequest{ID: queue.NewID(), RunSession: "run-1", Script: "rm -rf src", Cwd: e.f.Root}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { _, err := live.AskCheckpoint(ctx, e.f, r); errc <- err }()
	path := filepath.Join(e.f.Tmp(), r.ID+live.CkptExt)
	for {
		if _, err := os.Stat(path); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	swapped := r
	swapped.Script = "ls"
	e.send(t, swapped)
	e.s.scan()
	if err := <-errc; err == nil || !strings.Contains(err.Error(), "other than the one sent") {
		t.Errorf("AskCheckpoint = %v, want the swap refused", err)
	}
}
