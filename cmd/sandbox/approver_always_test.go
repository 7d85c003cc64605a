package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Approve always in sandbox watch stores a signed remembered decision that
// approves the identical next request by itself.
func TestWatchApproveAlwaysRemembers(t *testing.T) {
	t.Parallel()
	root := project(t, true)
	screen, key, wait := plainWatch(t, root)
	r3 := startRequest(t, root, "s3", "one\n", "--stdin", "--", "dd", "oflag=append", "conv=notrunc", "of=always.txt")
	screen.waitFor(t, "── request "+r3.id, 1)
	key("A")
	if code := r3.wait(); code != 0 {
		t.Fatalf("approve always: exit %d, stderr %q\nwatch:\n%s", code, r3.err.String(), screen.String())
	}
	screen.waitFor(t, "remembered: dd oflag=append conv=notrunc of=always.txt", 1)
	r4 := startRequest(t, root, "s4", "one\n", "--stdin", "--", "dd", "oflag=append", "conv=notrunc", "of=always.txt")
	if code := r4.wait(); code != 0 {
		t.Fatalf("remembered request: exit %d, stderr %q", code, r4.err.String())
	}
	screen.waitFor(t, r4.id+" approved by remembered decision", 1)
	data, _ := os.ReadFile(filepath.Join(root, "always.txt"))
	if string(data) != "one\none\n" {
		t.Errorf("always.txt = %q", data)
	}

	key("q")
	if code := wait(); code != 0 {
		t.Errorf("watch exit %d", code)
	}
}

// Approve always offers the general pattern beside the exact one, with
// why the request asked; one key ("A g") remembers the general pattern,
// which then approves a different request of the same shape.
func TestWatchApproveAlwaysGeneral(t *testing.T) {
	t.Parallel()
	root := project(t, true)
	screen, key, wait := plainWatch(t, root)
	r1 := startRequest(t, root, "s1", "one\n", "--stdin", "--", "dd", "oflag=append", "conv=notrunc", "of=a.txt")
	screen.waitFor(t, "── request "+r1.id, 1)
	screen.waitFor(t, "the narrowest rule that would allow it: shell allow \"dd oflag=append conv=notrunc of=a.txt\"", 1)
	screen.waitFor(t, "shell exact `dd oflag=append conv=notrunc of=a.txt`  or [g] general `dd **`", 1)
	key("A g")
	if code := r1.wait(); code != 0 {
		t.Fatalf("approve always general: exit %d, stderr %q\nwatch:\n%s", code, r1.err.String(), screen.String())
	}
	screen.waitFor(t, "remembered: dd **", 1)
	r2 := startRequest(t, root, "s2", "two\n", "--stdin", "--", "dd", "of=b.txt")
	if code := r2.wait(); code != 0 {
		t.Fatalf("remembered request: exit %d, stderr %q", code, r2.err.String())
	}
	screen.waitFor(t, r2.id+" approved by remembered decision dd **", 1)
	key("q")
	if code := wait(); code != 0 {
		t.Errorf("watch exit %d", code)
	}
}

// The third approval of the same shape brings a one-key offer of the
// narrowest rule covering the three (counted in the verified audit log);
// nothing is remembered without the key, and with it the next request of
// that shape is approved by itself.
func TestWatchOffersRuleOnThirdApproval(t *testing.T) {
	t.Parallel()
	root := project(t, true)
	screen, key, wait := plainWatch(t, root)
	for i, name := range []string{"a.txt", "b.txt", "c.txt"} {
		r := startRequest(t, root, "s", "x\n", "--stdin", "--", "dd", "oflag=append", "conv=notrunc", "of="+name)
		screen.waitFor(t, "── request "+r.id, 1)
		key("a")
		if code := r.wait(); code != 0 {
			t.Fatalf("%s: exit %d\nwatch:\n%s", name, code, screen.String())
		}
		screen.waitFor(t, r.id+" exited 0", 1)
		if i < 2 && strings.Contains(screen.String(), "always allow shell") {
			t.Fatalf("offered a rule after %d approvals:\n%s", i+1, screen.String())
		}
	}
	screen.waitFor(t, "shell `dd oflag=append conv=notrunc **` approved 3 times in 1 day", 1)
	screen.waitFor(t, "[y] always allow shell `dd oflag=append conv=notrunc **` in this folder", 1)
	key("y")
	screen.waitFor(t, "remembered: shell `dd oflag=append conv=notrunc **`", 1)
	r4 := startRequest(t, root, "s", "x\n", "--stdin", "--", "dd", "oflag=append", "conv=notrunc", "of=d.txt")
	if code := r4.wait(); code != 0 {
		t.Fatalf("remembered request: exit %d", code)
	}
	screen.waitFor(t, r4.id+" approved by remembered decision dd oflag=append conv=notrunc **", 1)
	// A different shape is not covered.
	r5 := startRequest(t, root, "s", "x\n", "--stdin", "--", "dd", "of=e.txt")
	screen.waitFor(t, "── request "+r5.id, 1)
	key("d")
	r5.wait()
	key("q")
	if code := wait(); code != 0 {
		t.Errorf("watch exit %d", code)
	}
}

// Approve always of a request with several escalated parts takes one rule
// per part, each shown with its choices first ("A g e": the general
// pattern for the first, the exact one for the second); a later request
// that both rules cover is approved by itself, one that only the first
// covers still asks.
func TestWatchApproveAlwaysPerPart(t *testing.T) {
	t.Parallel()
	root := project(t, true)
	screen, key, wait := plainWatch(t, root)
	script := "dd oflag=append conv=notrunc of=a.txt </dev/null && numfmt --to=iec 1024 >/dev/null; true"
	r1 := startRequest(t, root, "s1", "", "--script", script)
	screen.waitFor(t, "── request "+r1.id, 1)
	key("A g e")
	screen.waitFor(t, "part 1/2 shell dd oflag=append conv=notrunc of=a.txt: [Enter] exact `dd oflag=append conv=notrunc of=a.txt`  [g] general `dd **`", 1)
	screen.waitFor(t, "part 2/2 shell numfmt --to=iec 1024: [Enter] exact `numfmt --to=iec 1024`", 1)
	if code := r1.wait(); code != 0 {
		t.Fatalf("approve always per part: exit %d, stderr %q\nwatch:\n%s", code, r1.err.String(), screen.String())
	}
	screen.waitFor(t, "remembered: shell `dd **`; shell `numfmt --to=iec 1024`", 1)
	r2 := startRequest(t, root, "s2", "", "--script", "dd oflag=append conv=notrunc of=b.txt </dev/null && numfmt --to=iec 1024 >/dev/null; true")
	if code := r2.wait(); code != 0 {
		t.Fatalf("covered request: exit %d", code)
	}
	screen.waitFor(t, r2.id+" approved by remembered decision", 1)
	r3 := startRequest(t, root, "s3", "", "--script", "dd oflag=append conv=notrunc of=c.txt </dev/null && numfmt --to=iec 2048 >/dev/null; true")
	screen.waitFor(t, "── request "+r3.id, 1)
	key("d")
	r3.wait()
	key("q")
	if code := wait(); code != 0 {
		t.Errorf("watch exit %d", code)
	}
}
