package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// init probes the jail once, records it where the hook reads it, and
// says plainly what connector mode does with allowed commands here;
// doctor says it again, per agent.
func TestInitAndDoctorSayWhereAllowedCommandsRun(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	root, _ := filepath.EvalSymlinks(t.TempDir())
	code, out, errs := run(t, root, "init", root)
	if code != 0 {
		t.Fatalf("init: %d %s", code, errs)
	}
	st, err := userstate.OpenDir(filepath.Join(state, "sandbox"), false)
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.ReadJailProbe()
	if err != nil {
		t.Fatalf("init recorded no probe: %v", err)
	}
	want := "allowed shell commands run in the project jail"
	if !p.OK {
		want = "the jail cannot be built on this machine"
	}
	if !strings.Contains(out, "connector mode: "+want) {
		t.Errorf("init said:\n%s\nwant %q", out, want)
	}
	os.Remove(filepath.Join(st.Dir, "jail-probe"))
	code, out, _ = run(t, root, "doctor")
	if code != 0 || !strings.Contains(out, "connector") || !strings.Contains(out, want) ||
		!strings.Contains(out, "windsurf") || !strings.Contains(out, "can only block") {
		t.Errorf("doctor: %d\n%s", code, out)
	}
	if _, err := st.ReadJailProbe(); err != nil {
		t.Errorf("doctor did not record the probe again: %v", err)
	}
}
