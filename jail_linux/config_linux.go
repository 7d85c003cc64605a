//go:build linux

package jail_linux

import (
	"fmt"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// initConfig is what the supervisor sends the init: the spec without its
// streams and logger, plus how the init was started.
type initConfig struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`

	Writable []string `json:"writable"`
	ReadOnly []string `json:"read_only"`
	Holes    []string `json:"holes"`
	Hidden   []string `json:"hidden"`
	// SharedTmp keeps the host's /tmp and /var/tmp, their sockets hidden
	// (jailspec.FS.SharedTmp).
	SharedTmp bool `json:"shared_tmp"`
	// TmpSockets are the sockets the supervisor found in the shared
	// scratch trees (findTmpSockets); TmpScan asks the init to walk the
	// trees for more.
	TmpSockets []string `json:"tmp_sockets"`
	TmpScan    bool     `json:"tmp_scan"`
	// Placeholders are the paths the supervisor created to pin missing
	// ReadOnly names for this run.
	Placeholders []string              `json:"placeholders"`
	pinnedLinks  []string              // ReadOnly names that are symbolic links (the init's own)
	Substs       []jailspec.Substitute `json:"substitutes"`

	ProxyPort int   `json:"proxy_port"`
	NetOpen   bool  `json:"net_open"` // the whole network (jailspec.Net.Open)
	Forward   []int `json:"forward"`  // host loopback ports relayed in (jailspec.Net.Forward)

	Landlock   bool `json:"landlock"`
	Seccomp    bool `json:"seccomp"`
	NoNewPrivs bool `json:"no_new_privs"`
	MountNS    bool `json:"mount_ns"`
	PidNS      bool `json:"pid_ns"`
	NetNS      bool `json:"net_ns"`
	UserNS     bool `json:"user_ns"` // the init's capabilities are ambient ones in a user namespace
}

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
	if err := checkWritable(clean(s.FS.Writable)); err != nil {
		return nil, err
	}
	return &initConfig{
		Argv: s.Argv, Env: s.Env, Dir: s.Dir,
		Writable: clean(s.FS.Writable), ReadOnly: clean(s.FS.ReadOnly),
		Holes: clean(s.FS.WritableHoles), Hidden: clean(s.FS.Hidden), Substs: s.FS.Substitutes,
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
	for _, l := range [][]string{s.FS.Writable, s.FS.ReadOnly, s.FS.WritableHoles, s.FS.Hidden} {
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

// anyRestriction reports whether the command gets any per-thread
// restriction (which all need no_new_privs first).
func (c *initConfig) anyRestriction() bool { return c.Landlock || c.Seccomp || c.NoNewPrivs }
