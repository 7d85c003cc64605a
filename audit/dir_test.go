package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDirMovesALegacyLog: a log an older version kept in .sandbox/audit/
// is moved to the per-user state and still verifies there.
func TestDirMovesALegacyLog(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.appendN(t, 3)
	live := e.logPath()
	legacy := e.f.Audit()
	if err := os.MkdirAll(legacy, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(live, filepath.Join(legacy, LiveFile)); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(e.f, e.st)
	if err != nil || !rep.OK || rep.Records != 3 {
		t.Fatalf("verify after the move: %+v %v", rep, err)
	}
	if _, err := os.Lstat(filepath.Join(legacy, LiveFile)); !os.IsNotExist(err) {
		t.Errorf("the legacy log is still in the project: %v", err)
	}
}
