package serve

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, nil))
}

func TestLineSplitEscapesWholeLines(t *testing.T) {
	cases := []struct {
		name   string
		chunks []string
		want   string
	}{
		{"plain", []string{"a\nb", "c\n"}, "a\nbc\n"},
		{"escape split across chunks", []string{"x\x1b", "[31my\n"}, `x\x1b[31my` + "\n"},
		{"utf-8 split across chunks", []string{"caf\xc3", "\xa9\n"}, "café\n"},
		{"bidi override", []string{"a\u202eb\n"}, `a\u202eb` + "\n"},
		{"carriage return", []string{"50%\r100%\n"}, `50%\r100%` + "\n"},
		{"unfinished line", []string{"no newline"}, "no newline"},
		{"invalid utf-8", []string{"\xff\xfe\n"}, `\xff\xfe` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var l lineSplit
			var got string
			for _, c := range tc.chunks {
				got += l.push([]byte(c))
			}
			got += l.flush()
			if got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
	var l lineSplit
	long := strings.Repeat("é", maxPartial) // 2 bytes each
	got := l.push([]byte(long[:maxPartial+1]))
	if got == "" || strings.Contains(got, `\x`) {
		t.Fatalf("long line cut inside a character: %q", got[len(got)-8:])
	}
}

func TestLogTailSplitsStreamsByTheIndex(t *testing.T) {
	dir := t.TempDir()
	tl := &logTail{logPath: filepath.Join(dir, "x.log"), idxPath: filepath.Join(dir, "x.streams")}
	os.WriteFile(tl.idxPath, []byte("o 4\ne 4\no 3\n"), 0o644)
	os.WriteFile(tl.logPath, []byte("out\nerr\nend"), 0o644)
	var got []string
	tl.finish(nil, func(s, text string) { got = append(got, s+":"+text) })
	want := []string{"stdout:out\n", "stderr:err\n", "stdout:end"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q", got)
	}
	// A link in place of the log is never followed.
	tl2 := &logTail{logPath: filepath.Join(dir, "y.log"), idxPath: filepath.Join(dir, "y.streams")}
	os.Symlink("/etc/passwd", tl2.logPath)
	tl2.finish(&queue.Result{Stdout: "captured"}, func(s, text string) { got = append(got, text) })
	if got[len(got)-1] != "captured" {
		t.Fatalf("followed a link: %q", got)
	}
}

func TestPendingCacheReadsOnlyChangedFiles(t *testing.T) {
	h := newHarness(t, 1)
	p := h.projects[0]
	req := p.submit(t, "echo hi")
	fs := h.srv.folders[0]
	fs.track.stale.Store(true)
	fs.refresh()
	first, _ := fs.track.snapshot()
	if len(first) != 1 {
		t.Fatalf("%d cached", len(first))
	}
	fs.track.stale.Store(true)
	fs.refresh()
	again, _ := fs.track.snapshot()
	if again[0] != first[0] {
		t.Fatal("an unchanged file was parsed again")
	}
	// A file replaced in place (same name) is read again.
	path := filepath.Join(p.f.Pending(), req.ID+".json")
	data, _ := os.ReadFile(path)
	tmp := filepath.Join(p.f.Tmp(), "replacement")
	os.WriteFile(tmp, data, 0o644)       // writers rename into pending/
	later := time.Now().Add(time.Second) // file times can be coarser than this test
	os.Chtimes(tmp, later, later)
	os.Rename(tmp, path)
	fs.track.stale.Store(true)
	fs.refresh()
	third, _ := fs.track.snapshot()
	if len(third) != 1 || third[0] == first[0] {
		t.Fatal("a replaced file was not read again")
	}
}

func TestBadPendingFilesAreQuarantinedAndReported(t *testing.T) {
	h := newHarness(t, 1)
	p := h.projects[0]
	os.WriteFile(filepath.Join(p.f.Pending(), "01bad.json"), []byte("{not json"), 0o644)
	h.pending(t, 0)
	var fl struct{ Folders []FolderView }
	for range 100 {
		fl.Folders = nil // not the last answer's elements (see pending)
		decode(t, h.do(t, "GET", "/api/folders", ""), 200, &fl)
		if len(fl.Folders[0].Problems) > 0 {
			break
		}
		h.srv.folders[0].track.stale.Store(true)
	}
	if len(fl.Folders[0].Problems) != 1 || !strings.Contains(fl.Folders[0].Problems[0], "01bad.json") {
		t.Fatalf("problems %+v", fl.Folders[0].Problems)
	}
	if _, err := os.Stat(filepath.Join(p.f.Pending(), "01bad.json")); err == nil {
		t.Fatal("the bad file is still pending")
	}
}

// An audit record's details reach the page as escaped key/value fields:
// a string value is unquoted (so a bidi override in it, which JSON does
// not escape, must be escaped here), a nested value stays compact JSON.
func TestAuditDetails(t *testing.T) {
	got := details([]byte(`{"reason":"ok \u202e evil","exit":3,"argv":["a","b"],"z\u001b":"x"}`))
	want := []Detail{{"argv", `["a","b"]`}, {"exit", "3"}, {"reason", `ok \u202e evil`}, {`z\x1b`, "x"}}
	if len(got) != len(want) {
		t.Fatalf("details = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if details([]byte(`[1,2]`)) != nil || details(nil) != nil {
		t.Error("a detail that is not an object is split")
	}
}
