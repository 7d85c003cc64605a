//go:build linux

package jail_linux

import (
	"fmt"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	"path/filepath"
	"slices"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

func newInitConfig(s *jailspec.Spec, userNS bool) (*initConfig, error) {
	if len(s.Argv) == 0 || s.Argv[0] == "" {
		return nil, fmt.Errorf("%w: no command", ErrSpec)
	}
	for _, p := range allPaths(s) {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("%w: path %q is not absolute", ErrSpec, p)
		}
	}
	e := s.Enforce
	if (e.PidNS || e.NetNS) && !e.MountNS {
		return nil, fmt.Errorf("%w: pid and network namespaces need the mount namespace", ErrSpec)
	}
	if e.NetNS && s.Net.Open {
		return nil, fmt.Errorf("%w: an open network excludes the network namespace", ErrSpec)
	}
	if e.NetNS && s.Net.ProxyPort <= 0 {
		return nil, fmt.Errorf("%w: a network namespace needs a proxy port", ErrSpec)
	}
	if err := checkForward(s); err != nil {
		return nil, err
	}
	if err := jailinit.CheckWritable(clean(s.FS.Writable)); err != nil {
		return nil, err
	}
	for _, p := range clean(s.FS.NoLinks) {
		if !slices.Contains(clean(s.FS.Writable), p) {
			return nil, fmt.Errorf("%w: %s is in NoLinks but not in Writable", ErrSpec, p)
		}
	}
	return &initConfig{
		Argv: s.Argv, Direct: s.Direct, Env: s.Env, Dir: s.Dir,
		Writable: clean(s.FS.Writable), NoLinks: clean(s.FS.NoLinks), ReadOnly: clean(s.FS.ReadOnly),
		Holes: clean(s.FS.WritableHoles), Hidden: clean(s.FS.Hidden), Substs: substitutes(s.FS.Substitutes),
		SharedTmp: s.FS.SharedTmp,
		ProxyPort: s.Net.ProxyPort, NetOpen: s.Net.Open, Forward: s.Net.Forward,
		Landlock: e.Landlock, Seccomp: e.Seccomp, NoNewPrivs: e.NoNewPrivs,
		MountNS: e.MountNS, PidNS: e.PidNS, NetNS: e.NetNS, UserNS: userNS,
	}, nil
}

// maxForward bounds the forwarded ports (each is two sockets in the
// jail and two file descriptors in the supervisor).
const maxForward = 64

// checkForward refuses forwarded ports without a network namespace (the
// jail would share the host's loopback, and Landlock can only allow a
// port to every address), out of range, repeated, or the proxy's own.
func checkForward(s *jailspec.Spec) error {
	if len(s.Net.Forward) == 0 {
		return nil
	}
	if !s.Enforce.NetNS {
		return fmt.Errorf("%w: forwarded ports need the network namespace", ErrSpec)
	}
	if len(s.Net.Forward) > maxForward {
		return fmt.Errorf("%w: more than %d forwarded ports", ErrSpec, maxForward)
	}
	seen := map[int]bool{}
	for _, p := range s.Net.Forward {
		if p < 1 || p > 65535 || p == s.Net.ProxyPort || seen[p] {
			return fmt.Errorf("%w: forwarded port %d is out of range, repeated or the proxy's", ErrSpec, p)
		}
		seen[p] = true
	}
	return nil
}

func allPaths(s *jailspec.Spec) []string {
	all := []string{s.Dir}
	for _, l := range [][]string{s.FS.Writable, s.FS.NoLinks, s.FS.ReadOnly, s.FS.WritableHoles, s.FS.Hidden} {
		all = append(all, l...)
	}
	for _, sub := range s.FS.Substitutes {
		all = append(all, sub.Path, sub.Source)
	}
	return all
}

func clean(paths []string) []string {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, filepath.Clean(p))
	}
	return out
}

// substitutes converts the spec's substitutes into the init's.
func substitutes(subs []jailspec.Substitute) []jailinit.Substitute {
	out := make([]jailinit.Substitute, 0, len(subs))
	for _, s := range subs {
		out = append(out, jailinit.Substitute{Path: s.Path, Source: s.Source})
	}
	return out
}
