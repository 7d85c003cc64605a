package shell

import "testing"

// TestSymlinkTargets: a relative symbolic link leads where its target
// points from the link's own directory. `ln -s ../shared src/shared` was
// read as writing ../shared (outside the project) and escalated; a link
// that climbs out from its directory must still be seen climbing out.
func TestSymlinkTargets(t *testing.T) {
	for _, tc := range []struct {
		in   string
		must []string
	}{
		{"ln -s ../shared src/shared", []string{"write:src/shared", "write:src/../shared", "write:src/shared/../shared"}},
		{"ln -sf build/app bin/app", []string{"write:bin/app", "write:bin/build/app"}},
		{"ln -s ../../../etc a/b", []string{"write:a/../../../etc", "write:a/b/../../../etc"}},
		{"ln -s ../x y", []string{"write:./../x", "write:y/../x"}},
		{"ln -s ~/.ssh keys", []string{"write:~/.ssh", "write:keys"}},
		{"ln -s /etc x", []string{"write:/etc", "write:x"}},
		{"ln -sr ../x y", []string{"write:../x", "write:y"}},
		{"ln a ../b", []string{"write:a", "write:../b"}},
		{"ln -s ../.sandbox src/x", []string{"protected"}},
	} {
		t.Run(tc.in, func(t *testing.T) {
			effs := Analyze(tc.in, testOpts)
			for _, m := range tc.must {
				if !surfaces(effs, m) {
					t.Errorf("Analyze(%q) hides %s: %q", tc.in, m, briefs(effs))
				}
			}
		})
	}
}
