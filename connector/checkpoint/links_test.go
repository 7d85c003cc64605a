package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Restore never writes through a link planted in the project: a link put
// in place of a kept directory (to a place outside the project, or to
// another directory inside it), before the plan or between the plan and
// apply, makes the paths below it conflicts, and nothing is written
// where the link points.
func TestRestoreDoesNotFollowPlantedLinks(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	tests := []struct {
		name string
		// plant swaps src for a link; it runs before planning or, when
		// afterPlan, between Plan and Apply.
		afterPlan bool
		inside    bool
	}{
		{"link out of the project, before the plan", false, false},
		{"link out of the project, after the plan", true, false},
		{"link to another project directory, before the plan", false, true},
		{"link to another project directory, after the plan", true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, root := newTestStore(t, Options{})
			writeFile(t, filepath.Join(root, "src", "a.txt"), "kept", 0o644)
			writeFile(t, filepath.Join(root, "src", "sub", "b.txt"), "kept too", 0o644)
			ck, err := s.Take(Request{Paths: []string{filepath.Join(root, "src")}})
			mustOK(t, err)
			target := t.TempDir()
			if tc.inside {
				target = filepath.Join(root, "elsewhere")
				mustOK(t, os.Mkdir(target, 0o755))
			}
			mustOK(t, os.Mkdir(filepath.Join(target, "sub"), 0o755))
			plant := func() {
				mustOK(t, os.RemoveAll(filepath.Join(root, "src")))
				mustOK(t, os.Symlink(target, filepath.Join(root, "src")))
			}
			if !tc.afterPlan {
				plant()
			} else {
				mustOK(t, os.RemoveAll(filepath.Join(root, "src", "a.txt")))
				mustOK(t, os.RemoveAll(filepath.Join(root, "src", "sub", "b.txt")))
			}
			plan, err := s.Plan(ck)
			mustOK(t, err)
			if tc.afterPlan {
				plant()
			}
			err = s.Apply(plan)
			if !tc.afterPlan {
				for _, a := range plan {
					if a.Path != "src" && a.Op != OpConflict {
						t.Errorf("%s: %s, want a conflict", a.Path, a.Op)
					}
				}
			} else if !errors.Is(err, ErrLink) {
				t.Errorf("apply: %v, want ErrLink", err)
			}
			got := snapshot(t, target)
			sameSnapshot(t, got, map[string]string{".": got["."], "sub": got["sub"]})
		})
	}
}

// A file swapped for a link to a secret after its lstat is not read
// through the link (the walk opens without following), and a target whose
// parent is a link out of the project is not the checkpoint's business.
func TestCheckpointDoesNotReadThroughLinks(t *testing.T) {
	skipUnlessUnix(t)
	t.Parallel()
	s, root := newTestStore(t, Options{})
	secret := filepath.Join(t.TempDir(), "id_rsa")
	writeFile(t, secret, "PRIVATE KEY", 0o600)
	mustOK(t, os.Symlink(secret, filepath.Join(root, "key")))
	w := &walker{s: s, cache: s.loadCache(), ck: &Checkpoint{}, tops: map[string]entry{}}
	r, err := os.OpenRoot(root)
	mustOK(t, err)
	defer r.Close()
	w.root = r
	if _, _, err := w.readFile("key"); err == nil {
		t.Fatal("read a file through a link")
	}
	ck, err := s.Take(Request{Paths: []string{filepath.Join(root, "key")}})
	mustOK(t, err)
	items, err := s.items(ck)
	mustOK(t, err)
	if len(items) != 1 || items[0].Kind != Link {
		t.Fatalf("items = %+v", items)
	}
	data, err := s.get(kindBlob, items[0].ID)
	mustOK(t, err)
	if string(data) != secret {
		t.Errorf("kept %q, want the link's target name", data)
	}
}
