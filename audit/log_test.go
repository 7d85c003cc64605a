package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestAppendVerifyRead(t *testing.T) {
	t.Parallel()
	for _, d := range []Durability{SyncEach, SyncBatch} {
		t.Run(d.String(), func(t *testing.T) {
			e := newEnv(t)
			recs := e.appendN(t, 50, WithDurability(d))
			rep := e.mustVerifyOK(t)
			if rep.Records != 50 || rep.Head.Seq != 50 || rep.Anchor == nil || *rep.Anchor != rep.Head {
				t.Fatalf("report = %+v", rep)
			}
			var got []Record
			err := Read(context.Background(), e.f, e.st, 0, func(r Record) error {
				got = append(got, r)
				return nil
			})
			if err != nil || len(got) != 50 {
				t.Fatalf("read: %d records, %v", len(got), err)
			}
			for i, r := range got {
				if !r.Authentic || r.Seq != recs[i].Seq || r.HMAC != recs[i].HMAC || r.Prev != recs[i].Prev ||
					!r.Time.Equal(recs[i].Time) || string(r.Detail) != string(recs[i].Detail) {
					t.Fatalf("record %d: read %+v, appended %+v", i, r, recs[i])
				}
			}
		})
	}
}

// The line on disk is the canonical bytes with the hmac member spliced in
// before the closing brace, and re-encoding a Record gives the line back.
func TestCanonicalBytes(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	recs := e.appendN(t, 2)
	lines := e.lines(t)
	for i, line := range lines {
		p, ok := parseLine(line)
		if !ok {
			t.Fatalf("line %d does not parse", i+1)
		}
		if !strings.HasSuffix(string(p.prefix), `,"prev":"`+recs[i].Prev+`"`) {
			t.Fatalf("prefix %s", p.prefix)
		}
		again, err := json.Marshal(recs[i])
		if err != nil || string(again) != string(line) {
			t.Fatalf("re-encoded record\n%s\nline\n%s", again, line)
		}
	}
	if recs[0].Prev != strings.Repeat("0", 64) {
		t.Fatalf("genesis prev = %s", recs[0].Prev)
	}
}

func TestChainContinuesAcrossOpens(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	for range 3 {
		e.appendN(t, 5)
	}
	l := e.open(t)
	r, err := l.Append(testEntry(99))
	if err != nil || r.Seq != 16 {
		t.Fatalf("seq %d, %v", r.Seq, err)
	}
	l.Close()
	if rep := e.mustVerifyOK(t); rep.Records != 16 {
		t.Fatalf("records %d", rep.Records)
	}
}

func TestConcurrentGoroutinesAndLogs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	logs := []*Log{e.open(t), e.open(t, WithDurability(SyncBatch))}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 60 {
				if _, err := logs[g%2].Append(testEntry(i)); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, l := range logs {
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if rep := e.mustVerifyOK(t); rep.Records != 480 || rep.Head.Seq != 480 {
		t.Fatalf("records %d head %d", rep.Records, rep.Head.Seq)
	}
}

func TestEntryValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l := e.open(t)
	defer l.Close()
	bad := []Entry{
		{Event: "x"},
		{Actor: "a"},
		{Actor: "Hook", Event: "x"},
		{Actor: "a b", Event: "x"},
		{Actor: "a", Event: "x\n"},
		{Actor: "a", Event: "x", RequestID: "../etc"},
		{Actor: "a", Event: "x", Decision: strings.Repeat("d", 33)},
		{Actor: "a", Event: "x", ContentHash: "sha256:\"x"},
		{Actor: "a", Event: "x", Detail: map[string]any{"c": make(chan int)}},
	}
	for i, be := range bad {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			if _, err := l.Append(be); !errors.Is(err, ErrInvalidEntry) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}

func TestOversizedDetailIsDigested(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l := e.open(t)
	r, err := l.Append(Entry{Actor: "broker", Event: "exec.end", Detail: map[string]any{"out": strings.Repeat("x", 2*MaxDetail)}})
	l.Close()
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Oversized bool
		Bytes     int
		SHA256    string
	}
	if err := json.Unmarshal(r.Detail, &d); err != nil || !d.Oversized || d.Bytes <= 2*MaxDetail || len(d.SHA256) != 64 {
		t.Fatalf("detail %s (%v)", r.Detail, err)
	}
	e.mustVerifyOK(t)
}

// A link planted where the log or the lock should be is never followed.
func TestRefusesLinks(t *testing.T) {
	t.Parallel()
	for _, name := range []string{LiveFile, lockFile} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			target := filepath.Join(t.TempDir(), "target")
			if err := os.WriteFile(target, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, filepath.Join(e.dir(), name)); err != nil {
				t.Fatal(err)
			}
			l, err := Open(e.f, e.st)
			if err == nil {
				_, err = l.Append(testEntry(1))
				l.Close()
			}
			if !errors.Is(err, ErrAppend) {
				t.Fatalf("err = %v", err)
			}
			if fi, _ := os.Stat(target); fi.Size() != 0 {
				t.Fatal("wrote through the link")
			}
		})
	}
}

func TestClosed(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l := e.open(t)
	l.Close()
	if _, err := l.Append(testEntry(1)); !errors.Is(err, ErrClosed) {
		t.Fatalf("err = %v", err)
	}
}

// A held lock times an append out without hanging it; the wait the kernel
// keeps lets go once it gets the lock, and the same Log appends again.
func TestLockTimeoutLeavesTheLogUsable(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l := e.open(t, func(o *options) { o.lockTimeout = 100 * time.Millisecond })
	defer l.Close()
	if _, err := l.Append(testEntry(1)); err != nil {
		t.Fatal(err)
	}
	held, err := openLock(filepath.Join(e.dir(), lockFile))
	if err != nil {
		t.Fatal(err)
	}
	defer held.close()
	if err := held.acquire(true, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Append(testEntry(2)); !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("append with the lock held: %v", err)
	}
	held.release()
	for i := 3; i <= 5; i++ {
		if _, err := l.Append(testEntry(i)); err != nil {
			t.Fatalf("append %d after release: %v", i, err)
		}
	}
	if rep, err := Verify(e.f, e.st); err != nil || !rep.OK || rep.Records != 4 {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
}

func TestMemory(t *testing.T) {
	t.Parallel()
	var m Memory
	var a Appender = &m
	if _, err := a.Append(testEntry(1)); err != nil {
		t.Fatal(err)
	}
	m.FailWith(errors.New("disk full"))
	if _, err := a.Append(testEntry(2)); !errors.Is(err, ErrAppend) {
		t.Fatalf("err = %v", err)
	}
	if got := m.Records(); len(got) != 1 || got[0].Seq != 1 {
		t.Fatalf("records %+v", got)
	}
}
