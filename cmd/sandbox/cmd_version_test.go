package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionOf(t *testing.T) {
	t.Parallel()
	vcs := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"module version", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, "v1.2.3"},
		{"pseudo-version", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201201816-d3a7942f2109+dirty"}},
			"v0.0.0-20261201201816-d3a7942f2109+dirty"},
		{"revision", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(
			"vcs.revision", "d3a7942f21091cee39d1d815652446b727b16f7d", "vcs.time", "2026-12-01T20:18:16Z", "vcs.modified", "false")},
			"d3a7942f2109 (2026-12-01T20:18:16Z)"},
		{"modified", &debug.BuildInfo{Settings: vcs("vcs.revision", "d3a7942f2109aaaa", "vcs.modified", "true")},
			"d3a7942f2109-modified"},
		{"nothing", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "unknown (built without version control information)"},
		{"no build info", nil, "unknown (no build information)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := versionOf(tc.bi)
			if got != tc.want || strings.Contains(got, "(devel)") {
				t.Errorf("versionOf = %q, want %q", got, tc.want)
			}
		})
	}
}
