//go:build windows

package jail_windows

import (
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

func TestProbeReport(t *testing.T) {
	var j Jail
	r := j.Probe()
	if r.OS != "windows" || len(r.Layers) != len(jailspec.Layers) {
		t.Fatalf("report %+v: want one line per layer", r)
	}
	for i, l := range jailspec.Layers {
		if r.Layers[i].Layer != l {
			t.Fatalf("layer %d is %s, want %s", i, r.Layers[i].Layer, l)
		}
	}
	for _, l := range []jailspec.Layer{jailspec.LayerLandlock, jailspec.LayerSeccomp, jailspec.LayerNoNewPrivs,
		jailspec.LayerMount, jailspec.LayerNetwork} {
		if r.Layer(l).Status != jailspec.StatusMissing {
			t.Errorf("%s is %s: a Job Object does not provide it", l, r.Layer(l).Status)
		}
	}
	if !r.OK(jailspec.LayerPid) {
		t.Errorf("pid: %+v, want ok (kill-on-close)", r.Layer(jailspec.LayerPid))
	}
	cg := r.Layer(jailspec.LayerCgroup)
	if wine := WineVersion(); wine != "" {
		if cg.Status != jailspec.StatusDegraded || !strings.Contains(cg.Detail, "Wine") {
			t.Errorf("cgroup under Wine: %+v, want degraded (limits not enforced)", cg)
		}
	} else if cg.Status != jailspec.StatusOK {
		t.Errorf("cgroup: %+v, want ok", cg)
	}
	all := strings.ToLower(r.Layer(jailspec.LayerLandlock).Detail + r.Layer(jailspec.LayerNetwork).Detail + strings.Join(r.Notes, " "))
	for _, plain := range []string{"file system", "registry", "direct connections"} {
		if !strings.Contains(all, plain) {
			t.Errorf("the report does not say plainly that a Job Object leaves %s open", plain)
		}
	}
}
