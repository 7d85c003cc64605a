//go:build linux

package broker_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/launcher"
)

// BenchmarkRunGrantJailTrue: Run of /bin/true in its grant jail (a write
// grant outside the project), end to end; compare with
// BenchmarkProjectJailTrue, the project jail alone through the launcher.
func BenchmarkRunGrantJailTrue(b *testing.B) {
	requireJail(b)
	g := newGrantEnv(b)
	out := outsideDir(b)
	env := broker.Scrub(os.Environ(), nil)
	reportMedian(b, func(int) {
		oc, err := broker.Run(context.Background(), broker.Spec{
			Argv: []string{"/bin/true"}, Root: g.root, Env: env, Timeout: time.Minute,
			Jail: g.jail, Grant: broker.Grant{Write: []string{out}},
		})
		if err != nil || oc.ExitCode != 0 || !oc.Jailed {
			b.Fatal(oc, err)
		}
	})
}

// BenchmarkProjectJailTrue: launcher.Run of /bin/true in the project jail
// (what `sandbox run -- /bin/true` costs without the process start).
func BenchmarkProjectJailTrue(b *testing.B) {
	requireJail(b)
	g := newGrantEnv(b)
	reportMedian(b, func(int) {
		res, err := launcher.Run(context.Background(), launcher.Options{
			Folder: g.jail.Folder, Argv: []string{"/bin/true"}, StateDir: g.state,
		})
		if err != nil || res.Code != 0 {
			b.Fatal(res, err)
		}
	})
}
