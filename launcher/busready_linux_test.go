//go:build linux

package launcher

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// TestBusPreparedDuringStart: the bus loads the policy and installs the
// shims while the jail's init starts; the command sees the shims'
// environment and the installed shims, and a failed preparation stops
// the run before the command, leaving no jail behind.
func TestBusPreparedDuringStart(t *testing.T) {
	e := newJailEnv(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		exe  string
		ok   bool
	}{
		{"ready", exe, true},
		{"shims cannot be installed", filepath.Join(t.TempDir(), "missing"), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			st, err := userstate.OpenDir(filepath.Join(t.TempDir(), "state"), true)
			if err != nil {
				t.Fatal(err)
			}
			b, err := OpenBus(BusOptions{Folder: e.project, State: st, Exe: tc.exe})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			marker := filepath.Join(e.project.Root, "ran-"+strings.ReplaceAll(tc.name, " ", "-"))
			o := e.options(jailModes[0], "/bin/sh", "-c",
				`echo "session=$SANDBOX_SESSION"; test -x "$SANDBOX_SHIM_DIR/git" && echo git-shim; touch `+marker)
			b.Apply(&o)
			var out bytes.Buffer
			o.Stdout = &out
			res, err := Run(context.Background(), o)
			_, statErr := os.Stat(marker)
			switch {
			case tc.ok && (err != nil || res.Code != 0 || statErr != nil):
				t.Fatalf("run: %+v %v (marker: %v)", res, err, statErr)
			case tc.ok && out.String() != "session="+b.Session()+"\ngit-shim\n":
				t.Fatalf("the command saw %q", out.String())
			case !tc.ok && (err == nil || statErr == nil):
				t.Fatalf("a failed bus preparation let the command run: %+v %v", res, err)
			}
			assertNoJailLeft(t)
		})
	}
}
