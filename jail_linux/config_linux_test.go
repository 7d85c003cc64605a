//go:build linux

package jail_linux

import (
	"errors"
	"testing"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

func TestInitConfigValidation(t *testing.T) {
	ok := func() jailspec.Spec {
		return jailspec.Spec{Argv: []string{"true"}, Dir: "/", Net: jailspec.Net{ProxyPort: 3128},
			Enforce: jailspec.Enforce{MountNS: true, PidNS: true, NetNS: true}}
	}
	tests := []struct {
		name   string
		change func(*jailspec.Spec)
	}{
		{"no command", func(s *jailspec.Spec) { s.Argv = nil }},
		{"relative dir", func(s *jailspec.Spec) { s.Dir = "project" }},
		{"relative writable", func(s *jailspec.Spec) { s.FS.Writable = []string{"tmp"} }},
		{"pid namespace without mount", func(s *jailspec.Spec) { s.Enforce.MountNS = false }},
		{"network namespace without proxy", func(s *jailspec.Spec) { s.Net.ProxyPort = 0 }},
	}
	good := ok()
	if _, err := newInitConfig(&good, false); err != nil {
		t.Fatalf("valid spec: %v", err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := ok()
			tc.change(&s)
			if _, err := newInitConfig(&s, false); !errors.Is(err, ErrSpec) {
				t.Errorf("got %v, want ErrSpec", err)
			}
		})
	}
}
