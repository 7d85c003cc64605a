package launcher

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// GrantJail runs the broker's approved commands, each in a jail of its
// own: the project jail of `sandbox run` (the same file-system lists from
// buildFS, the same layers) widened by exactly the approval's grant. It
// implements broker.Jailer. The broker cannot build it itself: the
// launcher imports the approver, which imports the broker.
//
// Starting one costs what starting the project jail costs (the same
// init, in process: no `sandbox run` in between), plus a proxy goroutine.
type GrantJail struct {
	Folder   folder.Folder
	StateDir string // the per-user state dir, hidden always (default: userstate's)
	Jail     Jail   // nil: this OS's
	Logger   *slog.Logger
}

var _ broker.Jailer = (*GrantJail)(nil)

// Start starts c in its grant jail (or, with c.Bare, in a cgroup alone).
// Without Landlock (or, for Bare, without a cgroup) it returns an error
// wrapping broker.ErrNoJail and starts nothing.
func (g *GrantJail) Start(ctx context.Context, c broker.JailCommand) (jailspec.Process, error) {
	jail := g.Jail
	if jail == nil {
		jail = osJail()
	}
	rep := jail.Probe()
	enf, err := grantEnforce(rep, c)
	if err != nil {
		return nil, err
	}
	spec := &Spec{Argv: c.Argv, Dir: c.Dir, Env: c.Env, Enforce: enf, Logger: g.Logger}
	if c.Stdin != nil {
		spec.Stdin = c.Stdin
	}
	spec.Stdout, spec.Stderr = c.Stdout, c.Stderr
	if c.Bare {
		return jail.Start(ctx, spec)
	}
	return g.startGrant(ctx, jail, spec, c.Grant)
}

// grantEnforce is every layer the machine has, like run mode's, but
// without the network namespace for an open network; Bare is the cgroup
// alone.
func grantEnforce(rep Report, c broker.JailCommand) (jailspec.Enforce, error) {
	if runtime.GOOS != "linux" {
		// the broker's own child then runs in a Job Object of its own
		return jailspec.Enforce{}, fmt.Errorf("%w: no grant jail on %s yet", broker.ErrNoJail, runtime.GOOS)
	}
	on := func(l Layer) bool { return rep.Layer(l).Status != StatusMissing }
	if c.Bare {
		if !on(LayerCgroup) {
			return jailspec.Enforce{}, fmt.Errorf("%w: no cgroup (%s)", broker.ErrNoJail, rep.Layer(LayerCgroup).Detail)
		}
		return jailspec.Enforce{Cgroup: true}, nil
	}
	if !on(LayerLandlock) {
		return jailspec.Enforce{}, fmt.Errorf("%w: Landlock is missing (%s)", broker.ErrNoJail, rep.Layer(LayerLandlock).Detail)
	}
	mount := rep.OK(LayerMount)
	return jailspec.Enforce{
		Cgroup: on(LayerCgroup), Landlock: true, Seccomp: on(LayerSeccomp), NoNewPrivs: on(LayerNoNewPrivs),
		MountNS: mount, PidNS: mount && rep.OK(LayerPid),
		NetNS: mount && rep.OK(LayerNetwork) && c.Grant.Net != broker.NetAll,
	}, nil
}

// startGrant builds the grant jail's file system, network and
// environment, starts it and serves its proxy until it ends.
func (g *GrantJail) startGrant(ctx context.Context, jail Jail, spec *Spec, gr broker.Grant) (jailspec.Process, error) {
	o := &Options{Folder: g.Folder, StateDir: g.StateDir, Env: spec.Env, Agent: "-"}
	spec.FS = widen(buildFS(o, spec.Enforce.MountNS, nil), gr, o)
	if gr.Net == broker.NetAll {
		spec.Net.Open = true
		spec.Env = append(slices.Clone(spec.Env), "SANDBOX_JAIL=1")
		return jail.Start(ctx, spec)
	}
	var hostLn net.Listener
	port := InnerProxyPort
	if !spec.Enforce.NetNS {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("grant jail proxy: %w", err)
		}
		hostLn, port = ln, ln.Addr().(*net.TCPAddr).Port
	}
	var d NetDecider // nil: nothing passes
	if gr.Net == broker.NetHosts {
		allow, err := NewAllowList(gr.Hosts...)
		if err != nil {
			if hostLn != nil {
				hostLn.Close()
			}
			return nil, fmt.Errorf("grant jail hosts: %w", err)
		}
		d = allow
		if spec.Enforce.NetNS { // an approved host loopback service (127.0.0.1:5432)
			spec.Net.Forward = grantForwards(allow.ForwardPorts(), port)
		}
	}
	spec.Net.ProxyPort = port
	spec.Env = grantEnv(spec.Env, port, spec.Enforce.NetNS)
	p, err := jail.Start(ctx, spec)
	if err != nil {
		if hostLn != nil {
			hostLn.Close()
		}
		return nil, err
	}
	ln := hostLn
	if spec.Enforce.NetNS {
		ln = p.ProxyListener()
	}
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	if ln != nil {
		go NewProxy(d, g.Logger).Serve(pctx, ln)
	}
	serveForwards(pctx, p.Forwards(), d, g.Logger)
	return &grantProcess{Process: p, stop: stop}, nil
}

// grantEnv is env with the proxy and the jail's marker.
func grantEnv(env []string, port int, netNS bool) []string {
	out := make([]string, 0, len(env)+10)
	drop := map[string]bool{}
	for _, k := range append(append([]string{"SANDBOX_JAIL"}, proxyVars...), noProxy...) {
		drop[envKey(k)] = true
	}
	for _, kv := range env {
		if k, _, _ := cutEnv(kv); !drop[envKey(k)] {
			out = append(out, kv)
		}
	}
	for _, k := range proxyVars {
		out = append(out, k+"="+ProxyURL(port))
	}
	if netNS {
		for _, k := range noProxy {
			out = append(out, k+"=localhost,127.0.0.1,::1")
		}
	}
	return append(out, "SANDBOX_JAIL=1")
}

// grantProcess stops the jail's proxy once the jail has ended.
type grantProcess struct {
	jailspec.Process
	stop context.CancelFunc
}

func (p *grantProcess) Wait(ctx context.Context) (ExitStatus, error) {
	defer p.stop()
	return p.Process.Wait(ctx)
}

// widen adds the grant to the project jail's lists: granted writes become
// writable (and no longer read-only or hidden), granted reads no longer
// hidden. The per-user state dir stays hidden whatever the grant says.
func widen(fs jailspec.FS, g broker.Grant, o *Options) jailspec.FS {
	var keep []string
	if st := stateDirOf(o); st != "" {
		keep = append(keep, st)
	}
	for _, w := range g.Write {
		if _, err := os.Lstat(w); err != nil {
			continue // nothing to grant (the broker creates new targets first)
		}
		if folder.Within(o.Folder.Dir(), w) || slices.ContainsFunc(keep, func(k string) bool { return folder.Within(k, w) || folder.Within(w, k) }) {
			continue // self-protection: never the bus or the per-user state, whatever was approved
		}
		fs.Writable = append(fs.Writable, w)
		fs.ReadOnly = slices.DeleteFunc(fs.ReadOnly, func(r string) bool { return r == w || folder.Within(w, r) })
		fs.Hidden = unhide(fs.Hidden, w, keep)
	}
	for _, r := range g.Read {
		fs.Hidden = unhide(fs.Hidden, r, keep)
	}
	return fs
}

func stateDirOf(o *Options) string {
	if o.StateDir != "" {
		return filepath.Clean(o.StateDir)
	}
	st, _ := userstate.DefaultDir()
	return st
}

// unhide removes p from the hidden trees: a hidden tree at or below p is
// no longer hidden, and a hidden tree above p is replaced by its entries
// other than the one leading to p (recursively), so that only p comes
// into view. Trees in keep stay hidden. A tree that cannot be listed stays
// hidden whole.
func unhide(hidden []string, p string, keep []string) []string {
	var out []string
	for _, h := range hidden {
		switch {
		case slices.Contains(keep, h) || (h != p && !folder.Within(p, h) && !folder.Within(h, p)):
			out = append(out, h)
		case folder.Within(p, h): // h == p or below it
		default: // h above p
			out = append(out, carve(h, p)...)
		}
	}
	return out
}

// carve lists what stays hidden of tree h when p below it is shown.
func carve(h, p string) []string {
	entries, err := os.ReadDir(h)
	if err != nil {
		return []string{h}
	}
	var out []string
	for _, e := range entries {
		child := filepath.Join(h, e.Name())
		switch {
		case child == p:
		case folder.Within(child, p):
			out = append(out, carve(child, p)...)
		default:
			out = append(out, child)
		}
	}
	return out
}

func cutEnv(kv string) (string, string, bool) {
	for i := 0; i < len(kv); i++ {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}

// grantForwards are the approved loopback ports, sorted, without the
// proxy's and at most maxForwardPorts, and only those a service of the
// host listens on now: an approved command that starts its own server on
// the port it then reaches (a dev server and its curl) needs that port
// free on its jail's loopback, and a port nothing listens on has no host
// service to forward to.
func grantForwards(ports []int, proxyPort int) []int {
	slices.Sort(ports)
	ports = slices.DeleteFunc(slices.Compact(ports), func(p int) bool { return p == proxyPort || !hostListening(p) })
	return ports[:min(len(ports), maxForwardPorts)]
}
