//go:build linux

package launcher

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// BenchmarkRunTrue measures one jailed /bin/true from an already running
// supervisor (the CLI adds its own start-up on top; see
// hack/bench-run.sh), beside bubblewrap and a bare /bin/true.
func BenchmarkRunTrue(b *testing.B) {
	testenv.RequireRoot(b)
	e := newJailEnvB(b)
	b.Run("bare", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if err := exec.Command("/bin/true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		args := strings.Fields("--ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent /bin/true")
		b.Run("bwrap", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if out, err := exec.Command(bwrap, args...).CombinedOutput(); err != nil {
					b.Fatalf("%v %s", err, out)
				}
			}
		})
	}
	for _, bc := range []struct {
		name   string
		limits Limits
	}{{"jail", Limits{}}, {"jail-with-limits", Limits{Pids: 1000, MemoryBytes: 1 << 30}}} {
		b.Run(bc.name, func(b *testing.B) {
			o := e.options(jailModes[0], "/bin/true")
			o.Limits = bc.limits
			for i := 0; i < b.N; i++ {
				if res, err := Run(context.Background(), o); err != nil || res.Code != 0 {
					b.Fatalf("%+v %v", res, err)
				}
			}
		})
	}
}
