package adapter

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/install"
)

// TestPortableCommandFailsClosed: the committed hook names the sandbox on
// PATH; without one, the call is refused (exit 2, the agents' refusal)
// with a message, never let through by the shell's own 127.
func TestPortableCommandFailsClosed(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the guard is a POSIX shell line")
	}
	cmd := Command(install.PortableExe, "claude")
	empty := t.TempDir()
	sh := exec.Command("/bin/sh", "-c", cmd)
	sh.Env = []string{"PATH=" + empty}
	out, err := sh.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "not installed or not on PATH") {
		t.Fatalf("without sandbox on PATH: %v %q", err, out)
	}
	bin := t.TempDir()
	fake := "#!/bin/sh\necho ran \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "sandbox"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	sh = exec.Command("/bin/sh", "-c", cmd)
	sh.Env = []string{"PATH=" + bin + ":/usr/bin:/bin"}
	if out, err := sh.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "ran hook claude" {
		t.Fatalf("with sandbox on PATH: %v %q", err, out)
	}
	if strings.Contains(strings.ReplaceAll(cmd, "/dev/null", ""), "/") {
		t.Errorf("the portable command names a path: %s", cmd)
	}
}
