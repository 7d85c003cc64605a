//go:build linux

package jail_linux

import (
	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	"testing"
	"time"
)

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
	init := jailinit.Ctl{FD: int(child.Fd())}
	cases := []struct {
		name    string
		payload []byte
		ok      bool
	}{
		{"ready", []byte(`{"pid":8}`), true},
		{"largest", make([]byte, jailinit.MaxInitMsg-1), true},
		{"too long", make([]byte, jailinit.MaxInitMsg), false},
		{"capped error", []byte(jailinit.CapMsg(string(make([]byte, jailinit.MaxMsg/2)))), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := init.Send(msgError, tc.payload, -1); err != nil {
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
