package main

import (
	"strings"
	"testing"
)

// approve, deny, show and result take any unique prefix of an id; an
// ambiguous one acts on nothing and lists the candidates; completion
// offers the pending ids.
func TestIDPrefixes(t *testing.T) {
	t.Parallel()
	root := project(t, false)
	r1 := startRequest(t, root, "p1", "", "--script", "echo one")
	r2 := startRequest(t, root, "p2", "", "--script", "echo two")
	common := 0
	for common < len(r1.id) && r1.id[common] == r2.id[common] {
		common++
	}
	short1, short2 := r1.id[:common+1], r2.id[:common+1]

	if common > 0 {
		for _, cmd := range []string{"show", "deny", "approve", "result"} {
			code, _, errs := run(t, root, cmd, r1.id[:common])
			if code != exitUsage || !strings.Contains(errs, r1.id) || !strings.Contains(errs, r2.id) || !strings.Contains(errs, "nothing was done") {
				t.Errorf("%s with an ambiguous prefix: exit %d\n%s", cmd, code, errs)
			}
		}
		if items := list(t, root, "--state", "pending"); len(items) != 2 {
			t.Fatalf("an ambiguous prefix acted: %+v", items)
		}
	}
	if code, out, errs := run(t, root, "show", short1); code != 0 || !strings.Contains(out, "echo one") {
		t.Errorf("show %s: %d\n%s%s", short1, code, out, errs)
	}
	code, out, errs := run(t, root, "__complete", "approve", "")
	if code != 0 || !strings.Contains(out, r1.id+"\n") || !strings.Contains(out, r2.id+"\n") {
		t.Errorf("completion: %d\n%s%s", code, out, errs)
	}
	if code, out, errs := run(t, root, "deny", short1); code != 0 || !strings.Contains(out, "denied "+r1.id) {
		t.Errorf("deny %s: %d %s%s", short1, code, out, errs)
	}
	if code := r1.wait(); code != exitDenied {
		t.Errorf("denied request exit %d", code)
	}
	// list shows what waits first: r2, younger than the denied r1.
	_, out, _ = run(t, root, "list")
	if rows := strings.Split(out, "\n"); len(rows) < 3 || !strings.HasPrefix(rows[1], r2.id) || !strings.HasPrefix(rows[2], r1.id) {
		t.Errorf("list does not show the pending request first:\n%s", out)
	}
	if code, _, errs := run(t, root, "approve", short2, "--hash", hashOf(t, root, r2.id)); code != 0 {
		t.Errorf("approve %s: %d %s", short2, code, errs)
	}
	if code := r2.wait(); code != 0 {
		t.Errorf("approved request exit %d", code)
	}
	if code, out, _ := run(t, root, "result", short2); code != 0 || out != "two\n" {
		t.Errorf("result %s: %d %q", short2, code, out)
	}
	if _, out, _ := run(t, root, "list"); !strings.HasPrefix(out, "nothing pending in ") {
		t.Errorf("list with nothing pending:\n%s", out)
	}
	_, out, _ = run(t, root, "__complete", "show", "")
	if strings.Contains(out, r1.id) || strings.Contains(out, r2.id) {
		t.Errorf("completion offers a decided request:\n%s", out)
	}
}
