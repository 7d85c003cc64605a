//go:build unix

package shims

import (
	"strings"
	"testing"
)

// TestEscalateSaysWhenNobodyWatches: the shim's waiting notice says when
// no approver is watching the folder and how to start one, and says
// nothing of the kind while one is.
func TestEscalateSaysWhenNobodyWatches(t *testing.T) {
	fx := newFixture(t, testPolicy)
	ap := fx.approver()
	for _, watched := range []bool{false, true} {
		release := func() {}
		if watched {
			r, err := fx.f.HoldApprover()
			if err != nil {
				t.Fatal(err)
			}
			release = r
		}
		wait := started(t, fx.shim(fx.shimDir+":"+fx.realDir, nil, "push", "code", "0"))
		req := fx.pending()
		if _, err := ap.Approve(ctx(t), req.ID, approverShown(req)); err != nil {
			t.Fatal(err)
		}
		_, errOut, _ := wait()
		release()
		said := strings.Contains(errOut, "no approver is watching "+fx.f.Root) && strings.Contains(errOut, "sandbox watch")
		if said == watched {
			t.Errorf("watched=%v: stderr %q", watched, errOut)
		}
	}
}
