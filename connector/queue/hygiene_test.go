package queue

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// validRaw returns the encoded bytes of a valid request with the given id.
func validRaw(t *testing.T, id, script string) []byte {
	t.Helper()
	r := shellReq(script, "s")
	r.ID, r.Version, r.Created = id, Version, time.Now().UTC()
	r.Hash = r.ComputeHash()
	b, err := encode(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBadPendingFilesAreQuarantined(t *testing.T) {
	target := "/etc/shadow"
	if _, err := os.Lstat(target); err != nil {
		target = "/etc/passwd"
	}
	cases := []struct {
		name  string
		plant func(t *testing.T, dir string) string // returns the file name
	}{
		{"symlink to " + target, func(t *testing.T, dir string) string {
			mustOK(t, os.Symlink(target, filepath.Join(dir, "01aaaaaaaaaaaaaaaaaaaaaaaa.json")))
			return "01aaaaaaaaaaaaaaaaaaaaaaaa.json"
		}},
		{"symlink to a valid request", func(t *testing.T, dir string) string {
			p := writeRaw(t, t.TempDir(), "x.json", validRaw(t, "01link", "echo evil"))
			mustOK(t, os.Symlink(p, filepath.Join(dir, "01link.json")))
			return "01link.json"
		}},
		{"fifo", func(t *testing.T, dir string) string {
			mkfifo(t, filepath.Join(dir, "01fifo.json"))
			return "01fifo.json"
		}},
		{"hard link", func(t *testing.T, dir string) string {
			p := writeRaw(t, filepath.Join(dir, "..", "tmp"), "keep", validRaw(t, "01hard", "echo hi"))
			mustOK(t, os.Link(p, filepath.Join(dir, "01hard.json")))
			return "01hard.json"
		}},
		{"2 GiB sparse file", func(t *testing.T, dir string) string {
			f, err := os.Create(filepath.Join(dir, "01big.json"))
			mustOK(t, err)
			mustOK(t, f.Truncate(2<<30))
			f.Close()
			return "01big.json"
		}},
		{"invalid JSON", func(t *testing.T, dir string) string {
			writeRaw(t, dir, "01json.json", []byte(`{"v":1,"id":"01json",`))
			return "01json.json"
		}},
		{"id with ../", func(t *testing.T, dir string) string {
			b := strings.Replace(string(validRaw(t, "01dots", "echo")), `"id":"01dots"`, `"id":"../../etc/x"`, 1)
			writeRaw(t, dir, "01dots.json", []byte(b))
			return "01dots.json"
		}},
		{"id with NUL", func(t *testing.T, dir string) string {
			b := strings.Replace(string(validRaw(t, "01nul", "echo")), `"id":"01nul"`, `"id":"01nul\u0000x"`, 1)
			writeRaw(t, dir, "01nul.json", []byte(b))
			return "01nul.json"
		}},
		{"id not the file name", func(t *testing.T, dir string) string {
			writeRaw(t, dir, "01other.json", validRaw(t, "01else", "echo"))
			return "01other.json"
		}},
		{"unknown field", func(t *testing.T, dir string) string {
			b := strings.Replace(string(validRaw(t, "01unk", "echo")), `{`, `{"approved":true,`, 1)
			writeRaw(t, dir, "01unk.json", []byte(b))
			return "01unk.json"
		}},
		{"hash mismatch", func(t *testing.T, dir string) string {
			b := strings.Replace(string(validRaw(t, "01hash", "echo safe")), "echo safe", "rm -rf ~", 1)
			writeRaw(t, dir, "01hash.json", []byte(b))
			return "01hash.json"
		}},
		{"trailing data", func(t *testing.T, dir string) string {
			writeRaw(t, dir, "01trail.json", append(validRaw(t, "01trail", "echo"), []byte(`{}`)...))
			return "01trail.json"
		}},
		{"bad file name", func(t *testing.T, dir string) string {
			writeRaw(t, dir, "Evil\x1b[2J.json", validRaw(t, "01name", "echo"))
			return "Evil\x1b[2J.json"
		}},
		{"directory", func(t *testing.T, dir string) string {
			mustOK(t, os.Mkdir(filepath.Join(dir, "01dir.json"), 0o755))
			return "01dir.json"
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := testQueue(t)
			good := submit(t, q, shellReq("echo good", "s"))
			name := tc.plant(t, q.f.Pending())

			got, problems := listWithin(t, q)
			if len(got) != 1 || got[0].ID != good {
				t.Fatalf("pending = %v, want only the good request", got)
			}
			if len(problems) != 1 || problems[0].Name != name || problems[0].Quarantined == "" ||
				!errors.Is(problems[0].Err, ErrBadFile) {
				t.Fatalf("problems = %v", problems)
			}
			if _, err := os.Lstat(filepath.Join(q.f.Pending(), name)); !os.IsNotExist(err) {
				t.Fatalf("bad file still pending: %v", err)
			}
			if _, err := os.Lstat(problems[0].Quarantined); err != nil {
				t.Fatalf("not in quarantine: %v", err)
			}
			if strings.ContainsRune(problems[0].String(), 0x1b) {
				t.Fatalf("problem string not escaped: %q", problems[0].String())
			}
			if again, p := q.Pending(); len(again) != 1 || len(p) != 0 {
				t.Fatalf("second look: %v %v", again, p)
			}
			if n := names(t, q.f.Claimed()); len(n) != 0 {
				t.Fatalf("something was claimed: %v", n)
			}
		})
	}
}

// listWithin runs Pending with a deadline: a bad file must never block it.
func listWithin(t *testing.T, q *Queue) ([]*Request, []Problem) {
	t.Helper()
	type out struct {
		r []*Request
		p []Problem
	}
	ch := make(chan out, 1)
	go func() { r, p := q.Pending(); ch <- out{r, p} }()
	select {
	case o := <-ch:
		return o.r, o.p
	case <-time.After(20 * time.Second):
		t.Fatal("Pending blocked")
		return nil, nil
	}
}

func TestClaimOfBadFileQuarantines(t *testing.T) {
	q := testQueue(t)
	p := writeRaw(t, t.TempDir(), "x.json", validRaw(t, "01link", "echo evil"))
	mustOK(t, os.Symlink(p, filepath.Join(q.f.Pending(), "01link.json")))
	if _, err := q.Claim("01link"); !errors.Is(err, ErrBadFile) {
		t.Fatalf("claim: %v", err)
	}
	if n := names(t, q.f.Quarantine()); len(n) != 1 {
		t.Fatalf("quarantine = %v", n)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("link target touched: %v", err)
	}
}

func TestBadResultFile(t *testing.T) {
	q := testQueue(t)
	id := submit(t, q, shellReq("echo", "s"))
	mustOK(t, os.Symlink("/etc/passwd", q.path(StateDone, id)))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := q.Wait(ctx, id); !errors.Is(err, ErrBadFile) {
		t.Fatalf("wait: %v", err)
	}
	if n := names(t, q.f.Quarantine()); len(n) != 1 {
		t.Fatalf("quarantine = %v", n)
	}
}

func TestSymlinkedQueueDirRefused(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	q := testQueue(t)
	mustOK(t, os.Rename(q.f.Pending(), q.f.Pending()+".old"))
	mustOK(t, os.Symlink(t.TempDir(), q.f.Pending()))
	if _, err := Open(q.f); !errors.Is(err, ErrUnsafeLayout) {
		t.Fatalf("open: %v", err)
	}
}

func mustOK(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
