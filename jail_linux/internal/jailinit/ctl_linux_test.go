//go:build linux

package jailinit

import "testing"

// TestExitMessage: the exit message round-trips; anything else is refused.
func TestExitMessage(t *testing.T) {
	for _, m := range []ExitMsg{{0, 0}, {3, 0}, {137, 9}, {-1, 0}, {125, 0}} {
		got, ok := DecodeExit(m.Encode())
		if !ok || got != m {
			t.Errorf("%+v -> %q -> %+v, %v", m, m.Encode(), got, ok)
		}
	}
	for _, bad := range []string{"", "3", "3 x", "x 3", "3  9", "3 9 1", `{"code":3}`} {
		if m, ok := DecodeExit([]byte(bad)); ok {
			t.Errorf("%q decoded as %+v", bad, m)
		}
	}
}
