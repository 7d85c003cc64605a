package policy

import "testing"

// TestNulIsNotAWriteOnWindows: on Windows, a redirection to the null device
// named as itself (NUL, nul, NUL:, \\.\NUL) writes nothing, like
// /dev/null. A reserved name with an extension or in a directory is a
// device on some Windows versions and a file on others: it escalates.
// Pure path work, so it runs on every OS with the Windows forms on
// (under Windows itself: TestWindowsNul).
func TestNulIsNotAWriteOnWindows(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	e.res.windows = true
	for _, p := range []string{"NUL", "nul", "Nul", "NUL:", "nul:", `\\.\NUL`, `//./nul`} {
		t.Run("device "+p, func(t *testing.T) {
			for _, d := range []Decision{e.Write(p, ""), e.Read(p, "")} {
				if d.Decision != Allow || d.Parts[0].Rule != ruleDevices {
					t.Fatalf("%q = %v by %q (%s), want allowed as a device", p, d.Decision, d.Parts[0].Rule, d.Reasons)
				}
			}
		})
	}
	for _, p := range []string{"NUL.txt", "nul.log", `x\NUL`, `src\nul`, "x/NUL", `C:\NUL`, "NUL.", "nul ",
		"NUL:x", "NUL::$DATA", `\\.\NUL\x`, `\\.\NULL`, "CON", "con:"} {
		t.Run("ambiguous "+p, func(t *testing.T) {
			if d := e.Write(p, ""); d.Decision != Escalate {
				t.Fatalf("Write(%q) = %v (%s), want escalate", p, d.Decision, d.Reasons)
			}
		})
	}
	for _, tc := range []struct {
		script string
		want   Tier
	}{
		{"echo hi > NUL", Allow},
		{"echo hi 2>nul", Allow},
		{"echo hi >NUL: 2>&1", Allow},
		{"echo hi > NUL.txt", Escalate},
		{`echo hi > 'build\NUL'`, Escalate},
		{"echo hi > build/nul", Escalate},
	} {
		t.Run(tc.script, func(t *testing.T) {
			if d := e.Shell(tc.script, ""); d.Decision != tc.want {
				t.Fatalf("Shell(%q) = %v (%s), want %v", tc.script, d.Decision, d.Reasons, tc.want)
			}
		})
	}
}

// Elsewhere NUL is an ordinary file name.
func TestNulIsAFileOutsideWindows(t *testing.T) {
	env := newTestEnv(t)
	e := env.engine(t, DefaultYAML())
	e.res.windows = false
	if d := e.Write("NUL", ""); d.Parts[0].Rule == ruleDevices {
		t.Fatalf("Write(NUL) decided as a device: %+v", d)
	}
}
