//go:build linux

package launcher

import (
	"os"
	"path/filepath"
	"testing"
)

// TestJailCannotTouchTrustedStaging: the trusted side stages results, deny
// notes and the join index in escalations/staging/ and keeps results/ and
// done/ out of the jail's reach. A jailed process that could open a staged
// file (or a finished result) for writing could turn "denied" into
// "approved" through its handle; in every jail mode it gets EACCES or
// EROFS instead.
func TestJailCannotTouchTrustedStaging(t *testing.T) {
	e := newJailEnv(t)
	f := e.project
	for _, d := range []string{f.Staging(), f.Results()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	staged := filepath.Join(f.Staging(), ".tmp-123")
	done := filepath.Join(f.Done(), "r1.json")
	for _, p := range []string{staged, done, filepath.Join(f.Results(), "r1.log")} {
		mustWrite(t, p, `{"decision":"denied"}`)
	}
	cases := []probeCase{
		{"open a staged result", "write", []string{staged}},
		{"create in staging/", "write", []string{filepath.Join(f.Staging(), "x")}},
		{"overwrite a result", "write", []string{done}},
		{"overwrite a result log", "write", []string{filepath.Join(f.Results(), "r1.log")}},
		{"rename staging/ away", "rename", []string{f.Staging(), filepath.Join(f.Tmp(), "staging")}},
		{"move a staged file into tmp/", "rename", []string{staged, filepath.Join(f.Tmp(), "x")}},
		{"plant a result from tmp/", "rename", []string{filepath.Join(f.Tmp(), "r2.json"), filepath.Join(f.Done(), "r2.json")}},
	}
	mustWrite(t, filepath.Join(f.Tmp(), "r2.json"), `{"decision":"approved"}`)
	for _, m := range jailModes {
		t.Run(m.name, func(t *testing.T) {
			out, _ := runJailed(t, e.options(m, e.batchArgv(cases)...))
			got := batchResults(t, out, len(cases))
			for i, c := range cases {
				if got[i] == "ok" {
					t.Errorf("%s: the jail could %s %v", c.name, c.probe, c.args)
				}
			}
			for _, p := range []string{staged, done} {
				if b, err := os.ReadFile(p); err != nil || string(b) != `{"decision":"denied"}` {
					t.Errorf("%s changed: %q %v", p, b, err)
				}
			}
		})
	}
}
