//go:build windows

package launcher_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/launcher"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// winProject is a project folder with its per-user state kept apart.
func winProject(t *testing.T) (folder.Folder, string) {
	t.Helper()
	tmp := testenv.TempDir(t)
	state := filepath.Join(tmp, "state")
	t.Setenv("LOCALAPPDATA", state)
	t.Setenv("XDG_STATE_HOME", state)
	root := filepath.Join(tmp, "proj")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := folder.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return f, state
}

// A Job Object confines neither files, nor the registry, nor the network:
// run refuses to start until the user accepts each of those layers.
func TestWindowsRunNeedsAllowDegraded(t *testing.T) {
	f, state := winProject(t)
	res, err := launcher.Run(context.Background(), launcher.Options{
		Folder: f, StateDir: state, Argv: []string{"cmd", "/c", "exit 0"},
	})
	if !errors.Is(err, launcher.ErrDegraded) {
		t.Fatalf("Run = %v, want ErrDegraded", err)
	}
	for _, l := range []string{"landlock", "seccomp", "no_new_privs", "mount", "network"} {
		if !strings.Contains(err.Error(), l) {
			t.Errorf("the refusal does not name %s: %v", l, err)
		}
	}
	if len(res.NotEnforced) < 5 {
		t.Errorf("NotEnforced = %v", res.NotEnforced)
	}
}

func allLayers() []launcher.Layer { return append([]launcher.Layer{}, jailspec.Layers...) }

func TestWindowsRunCmdExitCode(t *testing.T) {
	f, state := winProject(t)
	var errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := launcher.Run(ctx, launcher.Options{
		Folder: f, StateDir: state, Argv: []string{"cmd", "/c", "exit 3"},
		AllowDegraded: allLayers(), Stderr: &errOut,
	})
	if err != nil || res.Code != 3 {
		t.Fatalf("Run = %+v, %v; want exit code 3", res, err)
	}
	if !strings.Contains(errOut.String(), "not fully enforced") {
		t.Errorf("no warning about the layers not enforced: %q", errOut.String())
	}
}

// sysDir heads the PATH that windowsEnv gives the jail.
const sysDir = `C:\windows\system32`

// windowsEnv is this environment with PATH spelled as Windows spells it,
// "Path", and the system dir first.
func windowsEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.EqualFold(k, "PATH") {
			kv = "Path=" + sysDir + ";" + v
		}
		env = append(env, kv)
	}
	return env
}

// The jailed command sees the shim dir first on its PATH and the proxy in
// its environment, and the proxy decides its destinations.
func TestWindowsRunEnvAndProxy(t *testing.T) {
	f, state := winProject(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := launcher.Run(ctx, launcher.Options{
		Folder: f, StateDir: state, Argv: []string{exe}, ShimDir: f.Shims(),
		Env:           append(windowsEnv(), "SANDBOX_LAUNCHER_WIN_HELPER=env", "HTTPS_PROXY=http://evil.example:1"),
		AllowDegraded: allLayers(), Stdout: &out, Stderr: &out,
	})
	if err != nil || res.Code != 5 {
		t.Fatalf("Run = %+v, %v; want exit code 5 (output %q)", res, err, out.String())
	}
	got := out.String()
	for _, want := range []string{
		"path0=" + f.Shims() + "\n", "path1=" + sysDir + "\n", "proxy=http://127.0.0.1:", "jail=1\n",
		"connect=HTTP/1.1 403",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
