//go:build linux

package launcher

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/testenv"
)

const nobody = 65534

// userJail is a project, state dir, home and a copy of this test binary
// that user nobody can use, for the tests of a non-root supervisor.
type userJail struct {
	base, project, probe string
}

func newUserJail(t *testing.T) *userJail {
	t.Helper()
	requireJail(t)
	// not under /tmp: the temp dirs are writable in every jail
	base, err := os.MkdirTemp("/var/lib", "sandbox-jail-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	u := &userJail{base: base, project: filepath.Join(base, "project"), probe: filepath.Join(base, "probe")}
	for _, rel := range []string{"home/.x", "state/sandbox/key", "project/.mcp.json", "project/.sandbox/policy.yaml"} {
		mustWrite(t, filepath.Join(base, rel), "original")
	}
	f, _ := folder.New(u.project)
	for _, d := range f.Subdirs() {
		os.MkdirAll(d, 0o755)
	}
	copyFile(t, os.Args[0], u.probe, 0o755)
	chownTree(t, base)
	return u
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
}

func chownTree(t *testing.T, root string) {
	t.Helper()
	os.Chmod(root, 0o755)
	filepath.Walk(root, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			err = os.Lchown(p, nobody, nobody)
		}
		return err
	})
}

// supervise runs the supervisor as nobody and returns its output.
func (u *userJail) supervise(t *testing.T, job supervisorJob) string {
	t.Helper()
	job.Project = u.project
	raw, _ := jsonMarshal(job)
	cmd := exec.Command(u.probe)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + filepath.Join(u.base, "home"),
		"XDG_STATE_HOME=" + filepath.Join(u.base, "state"), supervisorEnv + "=" + raw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("supervisor as nobody: %v\n%s", err, out)
	}
	return string(out)
}

// TestJailSetuid runs a setuid-root binary in the jail of a non-root user
// without namespaces (a user namespace would ignore the root-owned setuid
// bit anyway): no_new_privs keeps the user's euid.
func TestJailSetuid(t *testing.T) {
	u := newUserJail(t)
	suid := filepath.Join(u.base, "suid-probe")
	copyFile(t, os.Args[0], suid, 0o755)
	if err := os.Chmod(suid, 0o755|os.ModeSetuid); err != nil {
		t.Fatal(err)
	}
	control := exec.Command(suid, "probe", "euid")
	control.Env = []string{probeEnv + "=1"}
	control.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	if out, err := control.Output(); err != nil || !strings.Contains(string(out), "euid 0") {
		testenv.Skip(t, "setuid binaries do not work here (nosuid /tmp?): "+string(out))
	}
	off := []Layer{LayerMount, LayerPid, LayerNetwork}
	out := u.supervise(t, supervisorJob{Argv: []string{suid, "probe", "euid"}, Disable: off,
		Allow: append(off, LayerCgroup)})
	if !strings.Contains(out, "euid 65534") {
		t.Errorf("setuid root binary in the jail:\n%s", out)
	}
}

// TestJailUserNamespace runs the jail of a non-root user with the mount,
// pid and network namespaces inside a user namespace.
func TestJailUserNamespace(t *testing.T) {
	u := newUserJail(t)
	host := echoServer(t)
	tests := []struct {
		probeCase
		want string
	}{
		{probeCase{"status", "status", nil}, "ok"},
		{probeCase{"write in project", "write", []string{filepath.Join(u.project, "new")}}, "ok"},
		{probeCase{"write .mcp.json", "write", []string{filepath.Join(u.project, ".mcp.json")}}, "err E"},
		{probeCase{"write policy", "write", []string{filepath.Join(u.project, ".sandbox/policy.yaml")}}, "err E"},
		{probeCase{"write home", "write", []string{filepath.Join(u.base, "home/x")}}, "err E"},
		{probeCase{"read state", "read", []string{filepath.Join(u.base, "state/sandbox/key")}}, "err E"},
		{probeCase{"pid namespace", "kill0", []string{"1"}}, "ok"},
		{probeCase{"direct TCP to the host", "connect", []string{host}}, "err E"},
		{probeCase{"io_uring", "iouring", nil}, "err EPERM"},
	}
	cases := make([]probeCase, len(tests))
	for i, tc := range tests {
		cases[i] = tc.probeCase
	}
	e := &testJail{probe: u.probe}
	out := u.supervise(t, supervisorJob{Argv: e.batchArgv(cases), Allow: []Layer{LayerCgroup}})
	got := batchResults(t, out, len(cases))
	if !strings.Contains(out, "NoNewPrivs: 1") {
		t.Errorf("no_new_privs is not set:\n%s", out)
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.HasPrefix(got[i], tc.want) {
				t.Errorf("%s %v: got %q, want %q...", tc.probe, tc.args, got[i], tc.want)
			}
		})
	}
}
