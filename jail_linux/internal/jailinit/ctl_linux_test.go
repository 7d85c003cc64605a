//go:build linux

package jailinit

import "testing"

// TestExitMessage: the exit message round-trips; anything else is refused.
func TestExitMessage(t *testing.T) {
	for _, m := range []ExitMsg{{0, 0, false}, {3, 0, true}, {137, 9, false}, {-1, 0, true}, {125, 0, false}} {
		got, ok := DecodeExit(m.Encode())
		if !ok || got != m {
			t.Errorf("%+v -> %q -> %+v, %v", m, m.Encode(), got, ok)
		}
	}
	for _, bad := range []string{"", "3", "3 x", "x 3", "3  9", "3 9", "3 9 2", "3 9 1 1", "3 9 x", `{"code":3}`} {
		if m, ok := DecodeExit([]byte(bad)); ok {
			t.Errorf("%q decoded as %+v", bad, m)
		}
	}
}
