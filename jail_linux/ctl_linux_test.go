//go:build linux

package jail_linux

import (
	"testing"
	"time"
)

// TestExitMessage: the exit message round-trips; anything else is refused.
func TestExitMessage(t *testing.T) {
	for _, m := range []exitMsg{{0, 0}, {3, 0}, {137, 9}, {-1, 0}, {125, 0}} {
		got, ok := decodeExit(m.encode())
		if !ok || got != m {
			t.Errorf("%+v -> %q -> %+v, %v", m, m.encode(), got, ok)
		}
	}
	for _, bad := range []string{"", "3", "3 x", "x 3", "3  9", "3 9 1", `{"code":3}`} {
		if m, ok := decodeExit([]byte(bad)); ok {
			t.Errorf("%q decoded as %+v", bad, m)
		}
	}
}

// TestSupervisorRecv: the supervisor reads the init's messages whole, and
// refuses one longer than its buffer instead of acting on a truncated
// payload; the init caps its error messages well below that.
func TestSupervisorRecv(t *testing.T) {
	sup, child, err := socketpair()
	if err != nil {
		t.Fatal(err)
	}
	defer sup.Close()
	defer child.Close()
	init := initCtl{fd: int(child.Fd())}
	cases := []struct {
		name    string
		payload []byte
		ok      bool
	}{
		{"ready", []byte(`{"pid":8}`), true},
		{"largest", make([]byte, maxInitMsg-1), true},
		{"too long", make([]byte, maxInitMsg), false},
		{"capped error", []byte(capMsg(string(make([]byte, maxMsg/2)))), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := init.send(msgError, tc.payload, -1); err != nil {
				t.Fatal(err)
			}
			typ, got, fd, err := supCtl{c: sup}.recv(time.Second)
			if !tc.ok {
				if err == nil {
					t.Fatalf("accepted a %d-byte message", len(tc.payload))
				}
				return
			}
			if err != nil || typ != msgError || len(got) != len(tc.payload) || fd != -1 {
				t.Fatalf("got %q, %d bytes, fd %d, %v", typ, len(got), fd, err)
			}
		})
	}
}
