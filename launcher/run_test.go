package launcher_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/launcher"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
	"github.com/sandbox-dev/sandbox/launcher/launchertest"
)

func project(t *testing.T) folder.Folder {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", filepath.Join(t.TempDir(), "state"))
	f, err := folder.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func degraded(layers ...launcher.Layer) jailspec.Report {
	var r jailspec.Report
	for _, l := range layers {
		r.Layers = append(r.Layers, jailspec.LayerReport{Layer: l, Status: jailspec.StatusDegraded, Detail: "test"})
	}
	return r
}

func TestRunRefusesDegradedLayers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	tests := []struct {
		name    string
		report  jailspec.Report
		allow   []launcher.Layer
		disable []launcher.Layer
		wantErr bool
	}{
		{"all ok", degraded(), nil, nil, false},
		{"degraded, not allowed", degraded(launcher.LayerNetwork), nil, nil, true},
		{"degraded, allowed", degraded(launcher.LayerNetwork), []launcher.Layer{launcher.LayerNetwork}, nil, false},
		{"two degraded, one allowed", degraded(launcher.LayerNetwork, launcher.LayerCgroup), []launcher.Layer{launcher.LayerNetwork}, nil, true},
		{"disabled mount takes pid and network", degraded(), []launcher.Layer{launcher.LayerMount}, []launcher.Layer{launcher.LayerMount}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := &launchertest.Jail{Report: tc.report}
			var errOut bytes.Buffer
			res, err := launcher.Run(context.Background(), launcher.Options{
				Folder: project(t), Argv: []string{"/bin/sh", "-c", "exit 7"}, Jail: j,
				AllowDegraded: tc.allow, Disable: tc.disable, Stderr: &errOut,
			})
			if tc.wantErr {
				if !errors.Is(err, launcher.ErrDegraded) || len(j.Specs()) != 0 {
					t.Fatalf("got %v, started %d; want ErrDegraded and nothing started", err, len(j.Specs()))
				}
				return
			}
			if err != nil || res.Code != 7 {
				t.Fatalf("got %+v, %v", res, err)
			}
			if len(tc.allow) > 0 && !strings.Contains(errOut.String(), "not fully enforced") {
				t.Errorf("no warning for the allowed layers: %q", errOut.String())
			}
		})
	}
}

func TestRunSpec(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses /bin/sh")
	}
	f := project(t)
	j := &launchertest.Jail{}
	home := t.TempDir() // the agent's home: the run prepares its config there
	sock := filepath.Join(t.TempDir(), "agent")
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := launcher.Run(context.Background(), launcher.Options{
		Folder: f, Argv: []string{"/bin/true"}, Agent: "claude", Jail: j, CI: true,
		ShimDir: f.Shims(), Env: []string{"PATH=/usr/bin:/bin", "HOME=" + home, "HTTPS_PROXY=http://evil:1", "SSH_AUTH_SOCK=" + sock},
	})
	if err != nil {
		t.Fatal(err)
	}
	s := j.Specs()[0]
	env := strings.Join(s.Env, "\n")
	for _, want := range []string{"PATH=" + f.Shims() + ":/usr/bin:/bin", "HTTPS_PROXY=http://127.0.0.1:3128",
		"https_proxy=http://127.0.0.1:3128", "ALL_PROXY=http://127.0.0.1:3128", "SANDBOX_CI=1", "SANDBOX_JAIL=1"} {
		if !strings.Contains(env, want) {
			t.Errorf("env lacks %q:\n%s", want, env)
		}
	}
	for _, bad := range []string{"evil", "SSH_AUTH_SOCK"} {
		if strings.Contains(env, bad) {
			t.Errorf("env keeps %q:\n%s", bad, env)
		}
	}
	checks := []struct {
		what string
		list []string
		want string
	}{
		{"writable project", s.FS.Writable, f.Root},
		{"writable agent dir", s.FS.Writable, filepath.Join(home, ".claude")},
		{"read-only bus", s.FS.ReadOnly, f.Dir()},
		{"read-only git hooks", s.FS.ReadOnly, filepath.Join(f.Root, ".git/hooks")},
		{"read-only mcp config", s.FS.ReadOnly, filepath.Join(f.Root, ".mcp.json")},
		{"queue tmp hole", s.FS.WritableHoles, f.Tmp()},
		{"queue pending hole", s.FS.WritableHoles, f.Pending()},
		{"hidden state", s.FS.Hidden, filepath.Join(os.Getenv("XDG_STATE_HOME"), "sandbox")},
		{"hidden agent socket", s.FS.Hidden, sock},
	}
	for _, c := range checks {
		if !slices.Contains(c.list, c.want) {
			t.Errorf("%s: %q not in %v", c.what, c.want, c.list)
		}
	}
	if !s.Enforce.NetNS || !s.Enforce.Seccomp || !s.Enforce.Landlock {
		t.Errorf("enforce %+v", s.Enforce)
	}
}

// TestRunRefusesBadLimits: a process limit too small for the jail's init,
// or a negative limit, is refused before anything starts.
func TestRunRefusesBadLimits(t *testing.T) {
	for _, lim := range []launcher.Limits{{Pids: 4}, {Pids: -1}, {MemoryBytes: -1}, {CPUs: -0.5}} {
		if _, err := launcher.Run(context.Background(), launcher.Options{Argv: []string{"true"}, Limits: lim}); !errors.Is(err, launcher.ErrLimits) {
			t.Errorf("%+v: %v, want ErrLimits", lim, err)
		}
	}
}
