//go:build windows

package policy

import "testing"

// TestWindowsNul is TestNulIsNotAWriteOnWindows on Windows itself: the
// null device writes nothing; NUL with an extension or in a directory
// escalates.
func TestWindowsNul(t *testing.T) {
	w := newWinEnv(t)
	for _, tc := range []struct {
		p    string
		want Tier
	}{{"NUL", Allow}, {"nul:", Allow}, {`\\.\NUL`, Allow}, {"NUL.txt", Escalate}, {`src\NUL`, Escalate}} {
		t.Run(tc.p, func(t *testing.T) {
			if d := w.e.Write(tc.p, ""); d.Decision != tc.want {
				t.Fatalf("Write(%q) = %v (%s), want %v", tc.p, d.Decision, d.Reasons, tc.want)
			}
		})
	}
	if d := w.e.Shell("echo hi > NUL 2>&1", ""); d.Decision != Allow {
		t.Fatalf("Shell(echo hi > NUL) = %v (%s)", d.Decision, d.Reasons)
	}
}
