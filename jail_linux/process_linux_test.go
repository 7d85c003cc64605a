//go:build linux

package jail_linux

import (
	"context"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	"log/slog"
	"os/exec"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// TestProcessWaitStatus: the init's report of the command's end is the
// status; an init that dies without a readable one counts with its own
// status (never a zero "success"), whether its end of the control socket
// closed with it or something still holds it open. Spec.Ended hears of
// the end before Wait returns when the report says the jail is empty,
// and never otherwise.
func TestProcessWaitStatus(t *testing.T) {
	cases := []struct {
		name     string
		script   string
		report   string // "" sends none
		keepOpen bool   // the child end stays open after the init's death
		want     jailspec.ExitStatus
		ended    bool // Spec.Ended hears of it
	}{
		{"report", "exit 0", "3 0 0", false, jailspec.ExitStatus{Code: 3}, false},
		{"report of a signal", "exit 0", "137 9 0", false, jailspec.ExitStatus{Code: 137, Signal: 9}, false},
		{"report, jail empty", "sleep 0.2", "3 0 1", false, jailspec.ExitStatus{Code: 3}, true},
		{"report of a signal, jail empty", "exit 0", "137 9 1", false, jailspec.ExitStatus{Code: 137, Signal: 9}, true},
		{"killed, no report", "kill -9 $$", "", false, jailspec.ExitStatus{Code: 137, Signal: 9}, false},
		{"exited, no report", "exit 4", "", false, jailspec.ExitStatus{Code: 4}, false},
		{"no report, end held open", "kill -9 $$", "", true, jailspec.ExitStatus{Code: 137, Signal: 9}, false},
		{"malformed report", "exit 5", "x", false, jailspec.ExitStatus{Code: 5}, false},
		{"old report", "exit 5", "3 0", false, jailspec.ExitStatus{Code: 5}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sup, child, err := socketpair()
			if err != nil {
				t.Fatal(err)
			}
			defer child.Close()
			if tc.report != "" {
				if err := (jailinit.Ctl{FD: int(child.Fd())}).Send(msgExit, []byte(tc.report), -1); err != nil {
					t.Fatal(err)
				}
			}
			if !tc.keepOpen {
				child.Close()
			}
			cmd := exec.Command("/bin/sh", "-c", tc.script)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ended := make(chan jailspec.ExitStatus, 1)
			p := &process{cmd: cmd, ctl: supCtl{c: sup}, log: slog.New(slog.DiscardHandler),
				ended: func(st jailspec.ExitStatus) { ended <- st }}
			got := make(chan jailspec.ExitStatus, 1)
			go func() {
				st, _ := p.Wait(context.Background())
				got <- st
			}()
			select {
			case st := <-got:
				if st != tc.want {
					t.Errorf("status %+v, want %+v", st, tc.want)
				}
				select {
				case est := <-ended:
					if !tc.ended || est != tc.want {
						t.Errorf("Ended heard %+v (want it: %v)", est, tc.ended)
					}
				default:
					if tc.ended {
						t.Error("Ended heard nothing")
					}
				}
			case <-time.After(20 * time.Second):
				t.Fatal("Wait did not return")
			}
		})
	}
}
