package queue

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestQueueDirSwappedForLinkAfterOpen: a jailed process may rename and
// replace escalations/tmp and escalations/pending (they are its holes in
// a read-only .sandbox), so a link planted there after the trusted side
// opened the queue must lead nowhere. Before, Pending and Recover read
// and tidied the link's target: a file in any directory of the user was
// moved into quarantine/ (which the jail reads: a private key came out)
// and files older than ten minutes were deleted.
func TestQueueDirSwappedForLinkAfterOpen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("links need a privilege on Windows; the jail is Linux's")
	}
	for _, dir := range []string{"pending", "tmp"} {
		t.Run(dir, func(t *testing.T) {
			q := testQueue(t)
			victim := t.TempDir()
			secret := filepath.Join(victim, "id_rsa")
			mustOK(t, os.WriteFile(secret, []byte("KEY"), 0o600))
			old := time.Now().Add(-2 * time.Hour)
			mustOK(t, os.Chtimes(secret, old, old))
			real := filepath.Join(q.f.Escalations(), dir)
			mustOK(t, os.Rename(real, real+".old"))
			mustOK(t, os.Symlink(victim, real))

			q.Pending()
			q.Recover()
			q.List()

			if b, err := os.ReadFile(secret); err != nil || string(b) != "KEY" {
				t.Fatalf("the trusted side followed the planted %s link: %s is gone (%v)", dir, secret, err)
			}
			if n := names(t, q.f.Quarantine()); len(n) != 0 {
				t.Fatalf("quarantine = %v: a file from the link's target was moved into the project", n)
			}
		})
	}
}
