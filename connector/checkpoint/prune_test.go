package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestPruneByAgeAndSize(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s, root := newTestStore(t, Options{Now: clock, MaxAge: 24 * time.Hour, MaxStoreBytes: 1 << 20, PruneEvery: 1000 * time.Hour})
	take := func(name string, size int, at time.Time) *Checkpoint {
		t.Helper()
		now = at
		p := filepath.Join(root, name)
		writeFile(t, p, strings.Repeat(name, size/len(name)), 0o644)
		ck, err := s.Take(Request{Paths: []string{p}})
		mustOK(t, err)
		return ck
	}
	base := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	old := take("old", 100, base.Add(-48*time.Hour))
	// Incompressible: 700 KiB each, two of them over MaxStoreBytes.
	p := filepath.Join(root, "r1")
	writeRandom(t, p, 700<<10)
	now = base.Add(-time.Hour)
	r1, err := s.Take(Request{Paths: []string{p}})
	mustOK(t, err)
	p2 := filepath.Join(root, "r2")
	writeRandom(t, p2, 700<<10)
	now = base
	r2, err := s.Take(Request{Paths: []string{p2}})
	mustOK(t, err)

	rep, err := s.Prune()
	mustOK(t, err)
	list, _, err := s.List("")
	mustOK(t, err)
	ids := map[string]bool{}
	for _, ck := range list {
		ids[ck.ID] = true
	}
	if ids[old.ID] {
		t.Error("a checkpoint older than MaxAge was kept")
	}
	if !ids[r2.ID] {
		t.Error("the newest checkpoint was pruned")
	}
	if ids[r1.ID] {
		t.Error("r1 pushes the store over MaxStoreBytes and was kept")
	}
	if rep.Size > 1<<20 || rep.Objects == 0 {
		t.Errorf("report %+v", rep)
	}
	// What is left restores; what is gone is gone from the objects too.
	mustOK(t, os.Remove(p2))
	restoreAll(t, s, r2)
	if _, err := s.Plan(r1); err == nil {
		t.Error("r1's objects survived the prune")
	}
}

func writeRandom(t *testing.T, path string, n int) {
	t.Helper()
	b := make([]byte, n)
	x := uint64(0x9E3779B97F4A7C15)
	for _, c := range path {
		x = x*31 + uint64(c)
	}
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = byte(x)
	}
	writeFile(t, path, string(b), 0o644)
}
