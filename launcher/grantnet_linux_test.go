//go:build linux

package launcher

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
)

// An approved command whose grant names a host loopback service
// (127.0.0.1:PORT: `sandbox request` for a command that needs the local
// database) finds that port forwarded onto its jail's loopback, and no
// other; a grant without it finds none.
func TestGrantJailForwardsApprovedLoopbackPort(t *testing.T) {
	e := newJailEnv(t)
	port, other := hostService(t), hostService(t)
	p, q := strconv.Itoa(port), strconv.Itoa(other)
	cases := []probeCase{
		{"approved", "echo", []string{"127.0.0.1:" + p}},
		{"another port", "echo", []string{"127.0.0.1:" + q}},
	}
	for _, tc := range []struct {
		name  string
		grant broker.Grant
		want  []bool
	}{
		{"granted", broker.Grant{Net: broker.NetHosts, Hosts: []string{"127.0.0.1:" + p, "example.com:443"}}, []bool{true, false}},
		{"other hosts only", broker.Grant{Net: broker.NetHosts, Hosts: []string{"example.com:443"}}, []bool{false, false}},
		{"no network", broker.Grant{}, []bool{false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			defer out.Close()
			g := &GrantJail{Folder: e.project, StateDir: e.state}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			proc, err := g.Start(ctx, broker.JailCommand{Argv: e.batchArgv(cases), Dir: e.project.Root,
				Env: append(os.Environ(), probeEnv+"=1"), Stdout: out, Stderr: out, Grant: tc.grant})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := proc.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(out.Name())
			got := batchResults(t, string(b), len(cases))
			for i, c := range cases {
				if reached := strings.Contains(got[i], "echo ping"); reached != tc.want[i] {
					t.Errorf("%s: %s (want reached=%v)", c.name, got[i], tc.want[i])
				}
			}
		})
	}
}
