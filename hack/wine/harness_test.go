package wine_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// requireWine skips (fails under SANDBOX_STRICT_SKIPS=1) without Wine 8
// and the mingw binutils the forwarder DLL is built with.
func requireWine(t *testing.T) {
	t.Helper()
	const install = "apt-get install --no-install-recommends wine64 binutils-mingw-w64-x86-64"
	if _, err := os.Stat("/usr/lib/wine/wine64"); err != nil {
		if _, err := exec.LookPath("wine64"); err != nil {
			testenv.Skip(t, "Wine is not installed: "+install)
		}
	}
	for _, tool := range []string{"x86_64-w64-mingw32-as", "x86_64-w64-mingw32-ld"} {
		if _, err := exec.LookPath(tool); err != nil {
			testenv.Skip(t, tool+" is not installed: "+install)
		}
	}
}

// A Go >= 1.22 Windows binary starts under Wine through the wrapper (the
// forwarder DLL is in the prefix), its output comes through, and so does
// a Windows program's exit code.
func TestHarnessRunsWindowsPrograms(t *testing.T) {
	requireWine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	exe := filepath.Join(t.TempDir(), "hello.exe")
	build := exec.CommandContext(ctx, "go", "build", "-o", exe, "../hello")
	build.Env = append(os.Environ(), "GOOS=windows", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("cross-compile hack/hello: %v\n%s", err, out)
	}
	out, err := exec.CommandContext(ctx, "./go_windows_amd64_exec", exe).Output()
	if err != nil || !bytes.Equal(out, []byte("hello\n")) {
		t.Fatalf("hello.exe under Wine: %q, %v (is the forwarder DLL in the prefix?)", out, err)
	}
	err = exec.CommandContext(ctx, "./go_windows_amd64_exec", "cmd", "/c", "exit 7").Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 {
		t.Fatalf("cmd /c exit 7 under Wine: %v, want exit status 7", err)
	}
}
