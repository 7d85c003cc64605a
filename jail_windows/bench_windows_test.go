//go:build windows

package jail_windows

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// BenchmarkStartCmd is one jailed `cmd /c exit 0`, start to release:
// compare with BenchmarkDirectCmd.
func BenchmarkStartCmd(b *testing.B) {
	dir := testenv.TempDir(b)
	spec := &jailspec.Spec{Argv: []string{"cmd", "/c", "exit 0"}, Env: os.Environ(), Dir: dir,
		Enforce: jailspec.Enforce{Cgroup: true}}
	var j Jail
	for b.Loop() {
		p, err := j.Start(context.Background(), spec)
		if err != nil {
			b.Fatal(err)
		}
		if st, err := p.Wait(context.Background()); err != nil || st.Code != 0 {
			b.Fatal(st, err)
		}
	}
}

// BenchmarkDirectCmd is `cmd /c exit 0` started directly.
func BenchmarkDirectCmd(b *testing.B) {
	for b.Loop() {
		if err := exec.Command("cmd", "/c", "exit 0").Run(); err != nil {
			b.Fatal(err)
		}
	}
}
