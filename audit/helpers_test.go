package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Child modes: the test binary re-executed as another appending process.
const (
	childEnv = "AUDIT_TEST_CHILD" // "append" (AUDIT_TEST_N records) or "loop" (until killed)
	rootEnv  = "AUDIT_TEST_ROOT"
	countEnv = "AUDIT_TEST_N"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

func runChild(mode string) int {
	f, err := folder.New(os.Getenv(rootEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	st, err := userstate.Open(false)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	opts := []Option{}
	if mode == "loop" {
		opts = append(opts, WithDurability(SyncBatch))
	}
	l, err := Open(f, st, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	n, _ := strconv.Atoi(os.Getenv(countEnv))
	for i := 0; mode == "loop" || i < n; i++ {
		e := Entry{Actor: "shim", Event: "exec.start", Detail: map[string]any{"pid": os.Getpid(), "i": i}}
		if _, err := l.Append(e); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 4
		}
	}
	if err := l.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 5
	}
	return 0
}

// env is a project folder with its .sandbox/ and a per-user state dir
// in temp dirs (testenv.Project).
type env struct {
	f  folder.Folder
	st *userstate.State
}

func newEnv(t testing.TB) env {
	t.Helper()
	f, st := testenv.Project(t)
	return env{f: f, st: st}
}

func (e env) open(t testing.TB, opts ...Option) *Log {
	t.Helper()
	l, err := Open(e.f, e.st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func (e env) logPath() string { return filepath.Join(e.dir(), LiveFile) }

// dir is the folder's audit dir (in the per-user state).
func (e env) dir() string {
	d, err := Dir(e.f, e.st)
	if err != nil {
		panic(err)
	}
	return d
}

// appendN appends n records through a fresh Log and closes it.
func (e env) appendN(t testing.TB, n int, opts ...Option) []Record {
	t.Helper()
	l := e.open(t, opts...)
	recs := make([]Record, 0, n)
	for i := range n {
		r, err := l.Append(testEntry(i))
		if err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		recs = append(recs, r)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return recs
}

func testEntry(i int) Entry {
	return Entry{
		Actor: "hook:claude", Event: "request.created", RequestID: fmt.Sprintf("20250101-%04d-ab", i),
		Decision: "escalate", ContentHash: fmt.Sprintf("%064x", i),
		Detail: map[string]any{"i": i, "script": "git push <origin> & \"x\"\x1b[31m"},
	}
}

func (e env) verify(t testing.TB) *Report {
	t.Helper()
	rep, err := Verify(e.f, e.st)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func (e env) mustVerifyOK(t testing.TB) *Report {
	t.Helper()
	rep := e.verify(t)
	if !rep.OK {
		t.Fatalf("verify failed: %v (problems %v)", rep.FirstBad, rep.Problems)
	}
	return rep
}

// lines reads the live file split into lines (each without its newline).
func (e env) lines(t testing.TB) [][]byte {
	t.Helper()
	data, err := os.ReadFile(e.logPath())
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'})
}

func (e env) writeLines(t testing.TB, lines [][]byte) {
	t.Helper()
	data := append(bytes.Join(lines, []byte{'\n'}), '\n')
	if len(lines) == 0 {
		data = nil
	}
	if err := os.WriteFile(e.logPath(), data, 0o600); err != nil {
		t.Fatal(err)
	}
}
