//go:build linux

package jail_linux

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

func (f *facts) report() jailspec.Report {
	r := jailspec.Report{OS: "linux", LandlockABI: f.landlockABI, CgroupMode: f.cg.mode}
	r.Layers = []jailspec.LayerReport{
		f.cgroupLayer(), f.landlockLayer(), f.seccompLayer(), f.nnpLayer(),
		f.mountLayer(), f.pidLayer(), f.networkLayer(),
	}
	r.Notes = append(r.Notes, "kernel "+f.kernel+" "+runtime.GOARCH, f.usernsNote())
	if f.cg.useV1 && f.cg.usable {
		r.Notes = append(r.Notes, "cgroup v1: with --memory, --pids or --cpu, the jail's init is forked from a "+
			"supervisor thread moved into the v1 controllers, so it is born inside them; cgroup v2 clones it straight into its cgroup")
	}
	return r
}

func layer(l jailspec.Layer, s jailspec.Status, format string, args ...any) jailspec.LayerReport {
	return jailspec.LayerReport{Layer: l, Status: s, Detail: fmt.Sprintf(format, args...)}
}

func (f *facts) cgroupLayer() jailspec.LayerReport {
	c := f.cg
	switch {
	case !c.usable:
		return layer(jailspec.LayerCgroup, jailspec.StatusMissing, "%s: %s", orNone(c.mode), c.why)
	case c.useV1:
		kill := "kill-all by the pid namespace or the v1 freezer"
		if c.v2Base != "" {
			kill = "cloned into a v2 cgroup under " + c.v2Mount + c.v2Base + ", kill-all by cgroup.kill"
		}
		return layer(jailspec.LayerCgroup, jailspec.StatusOK,
			"%s: limits on v1 memory, pids%s under %s (entered only when limits are set); %s",
			c.mode, v1Extra(c), c.v1["memory"].dir, kill)
	}
	var missing []string
	for _, ctrl := range []string{"memory", "pids", "cpu"} {
		if !slices.Contains(c.v2Ctrl, ctrl) {
			missing = append(missing, ctrl)
		}
	}
	where := c.v2Mount + c.v2Base
	if len(missing) > 0 {
		return layer(jailspec.LayerCgroup, jailspec.StatusDegraded,
			"%s: under %s, cloned in, kill-all by cgroup.kill; controllers %s not available: those limits are not enforced",
			c.mode, where, strings.Join(missing, ", "))
	}
	return layer(jailspec.LayerCgroup, jailspec.StatusOK,
		"%s: under %s with memory, pids, cpu; cloned in (CLONE_INTO_CGROUP), kill-all by cgroup.kill", c.mode, where)
}

func v1Extra(c cgroupFacts) string {
	s := ""
	for _, ctrl := range []string{"cpu", "freezer"} {
		if _, ok := c.v1[ctrl]; ok {
			s += ", " + ctrl
		}
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (f *facts) landlockLayer() jailspec.LayerReport {
	abi := f.landlockABI
	if abi == 0 {
		return layer(jailspec.LayerLandlock, jailspec.StatusMissing,
			"Landlock is not enabled in this kernel (needs 5.13+ with lsm=...,landlock)")
	}
	var gaps []string
	for _, g := range landlockGaps {
		if abi < g.abi {
			gaps = append(gaps, g.what)
		}
	}
	if len(gaps) > 0 {
		return layer(jailspec.LayerLandlock, jailspec.StatusDegraded,
			"ABI %d: not enforced: %s", abi, strings.Join(gaps, "; "))
	}
	return layer(jailspec.LayerLandlock, jailspec.StatusOK,
		"ABI %d: reads, writes, executes, renames across dirs, truncate, device ioctls, TCP ports, signals and abstract unix sockets", abi)
}

var landlockGaps = []struct {
	abi  int
	what string
}{
	{2, "renames and links across directories (ABI 2)"},
	{3, "truncate (ABI 3)"},
	{4, "TCP connect/bind (ABI 4)"},
	{5, "device ioctls (ABI 5)"},
	{6, "scoping of signals and abstract unix sockets: the jail may signal the supervisor (ABI 6)"},
}

func (f *facts) seccompLayer() jailspec.LayerReport {
	if !f.seccomp {
		return layer(jailspec.LayerSeccomp, jailspec.StatusMissing, "%s", f.seccompWhy)
	}
	return layer(jailspec.LayerSeccomp, jailspec.StatusOK,
		"%s filter: ptrace, mounts, namespaces, io_uring, bpf, keyctl, TIOCSTI, raw and non-inet sockets, ... refused", runtime.GOARCH)
}

func (f *facts) nnpLayer() jailspec.LayerReport {
	return layer(jailspec.LayerNoNewPrivs, jailspec.StatusOK,
		"no_new_privs and no capabilities: setuid and file capabilities grant nothing")
}

func (f *facts) mountLayer() jailspec.LayerReport {
	if f.namespaces() {
		return layer(jailspec.LayerMount, jailspec.StatusOK,
			"mount namespace: .sandbox/ and agent config read-only over the writable project, per-user state dir hidden")
	}
	if f.landlockABI > 0 {
		return layer(jailspec.LayerMount, jailspec.StatusDegraded,
			"no mount namespace (%s): project writes granted entry by entry (no new top-level files), "+
				".sandbox/ guarded by Landlock and the integrity checks", f.usernsWhy)
	}
	return layer(jailspec.LayerMount, jailspec.StatusMissing, "no mount namespace (%s) and no Landlock", f.usernsWhy)
}

func (f *facts) pidLayer() jailspec.LayerReport {
	if f.namespaces() {
		return layer(jailspec.LayerPid, jailspec.StatusOK,
			"pid namespace: the jail's init is pid 1, every jailed process dies with it (supervisor crash included)")
	}
	if f.cg.usable {
		return layer(jailspec.LayerPid, jailspec.StatusDegraded,
			"no pid namespace (%s): kill-all by cgroup at exit, but a crashed supervisor may leave jailed processes", f.usernsWhy)
	}
	return layer(jailspec.LayerPid, jailspec.StatusMissing,
		"no pid namespace (%s) and no cgroup: jailed processes may outlive the run", f.usernsWhy)
}

func (f *facts) networkLayer() jailspec.LayerReport {
	if f.namespaces() {
		return layer(jailspec.LayerNetwork, jailspec.StatusOK,
			"network namespace with loopback only; the proxy is the way out")
	}
	if f.landlockABI >= 4 && f.seccomp {
		return layer(jailspec.LayerNetwork, jailspec.StatusDegraded,
			"no network namespace (%s): Landlock allows TCP connect only to the proxy's port, but to any host "+
				"on that port; UDP, raw and netlink refused; pathname unix sockets stay reachable", f.usernsWhy)
	}
	return layer(jailspec.LayerNetwork, jailspec.StatusMissing,
		"no network namespace (%s) and no Landlock TCP rules (ABI 4): direct connections are possible", f.usernsWhy)
}

func (f *facts) usernsNote() string {
	switch {
	case f.euid == 0:
		return "user namespaces: not needed (root)"
	case f.userns:
		return "user namespaces: available"
	}
	return "user namespaces: unavailable: " + f.usernsWhy
}
