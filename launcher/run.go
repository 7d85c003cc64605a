package launcher

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/internal/resident"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// InnerProxyPort is where the jail finds the proxy on its own loopback
// when it has a network namespace.
const InnerProxyPort = 3128

// Result is how a run ended.
type Result struct {
	ExitStatus
	// NotEnforced lists the layers that were degraded or missing (and
	// allowed by the user).
	NotEnforced []LayerReport
}

// Run jails o.Argv and waits for it. Cancelling ctx kills the jail. The
// error is nil when the command ran, whatever its exit status.
func Run(ctx context.Context, o Options) (Result, error) {
	if len(o.Argv) == 0 {
		return Result{}, ErrNoCommand
	}
	if err := checkLimits(o.Limits); err != nil {
		return Result{}, err
	}
	r := newRun(&o)
	weak, err := r.check()
	if err != nil {
		return Result{NotEnforced: weak}, err
	}
	if w := NotEnforcedWarning(weak); w != "" && o.Stderr != nil && !o.Quiet {
		io.WriteString(o.Stderr, w)
	}
	st, err := r.run(ctx)
	return Result{ExitStatus: st, NotEnforced: weak}, err
}

// StartAhead starts the init of a coming Run with o's layers and limits
// now, when the caller knows the run before it can start it (an agent's
// supervisor while its worktree is checked out): the init's process and
// runtime start, its namespaces and cgroup leave the run's path. Run
// takes it when its options make the same kind of jail; a jail of the
// system's own (o.Jail unset) only.
func StartAhead(o Options) {
	if o.Jail != nil || checkLimits(o.Limits) != nil {
		return
	}
	r := newRun(&o)
	r.check() // a layer refused later refuses the run, not this
	startAhead(r.enforce(), o.Limits)
}

// checkLimits refuses limits no jail can run under.
func checkLimits(l Limits) error {
	switch {
	case l.MemoryBytes < 0 || l.Pids < 0 || l.CPUs < 0:
		return fmt.Errorf("%w: a limit is negative", ErrLimits)
	case l.Pids > 0 && l.Pids < policy.MinPIDs:
		return fmt.Errorf("%w: a process limit of %d leaves the jail's init no room to start (at least %d)", ErrLimits, l.Pids, policy.MinPIDs)
	}
	return nil
}

// run is one Run in progress.
type run struct {
	o      *Options
	jail   Jail
	report Report
	log    *slog.Logger
	global *globalCopy // the agent's per-run config copy (agentfs.go), nil without one
	views  []string    // the per-run dirs of the jail's views (hookview.go, gitexclude.go)
}

func newRun(o *Options) *run {
	r := &run{o: o, jail: o.Jail, log: o.Logger}
	if r.jail == nil {
		r.jail = osJail()
	}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	return r
}

func (r *run) check() ([]LayerReport, error) {
	r.report = r.jail.Probe()
	applyDisable(&r.report, r.o.Disable)
	return checkDegraded(r.report, r.o.AllowDegraded)
}

func (r *run) run(ctx context.Context) (ExitStatus, error) {
	if r.o.Folder.Root == "" {
		return ExitStatus{}, errors.New("launcher: no project folder")
	}
	defer r.mergeGlobal()
	defer func() {
		for _, dir := range r.views {
			os.RemoveAll(dir)
		}
	}()
	enf := r.enforce()
	proxy := NewProxy(r.o.Decider, r.log)
	var hostLn net.Listener
	port := InnerProxyPort
	if !enf.NetNS {
		ln, err := net.Listen("tcp4", "127.0.0.1:0")
		if err != nil {
			return ExitStatus{}, fmt.Errorf("proxy: %w", err)
		}
		hostLn, port = ln, ln.Addr().(*net.TCPAddr).Port
	}
	spec, err := r.spec(enf, port)
	var p Process
	if err == nil {
		p, err = r.jail.Start(ctx, spec)
	}
	if err != nil {
		if hostLn != nil {
			hostLn.Close()
		}
		return ExitStatus{}, err
	}
	ln := hostLn
	if enf.NetNS {
		ln = p.ProxyListener()
	}
	if r.o.Started != nil {
		r.o.Started()
	}
	return r.supervise(ctx, p, proxy, ln)
}

// supervise serves the proxy and forwards signals until the command ends.
func (r *run) supervise(ctx context.Context, p Process, proxy *Proxy, ln net.Listener) (ExitStatus, error) {
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	if ln != nil {
		go proxy.Serve(pctx, ln)
	}
	serveForwards(pctx, p.Forwards(), r.o.Decider, r.log)
	go resident.ReleaseAfter(pctx, settled)
	if r.o.ForwardSignals {
		// os/signal's Notify and Stop round-trip with a thread per signal
		// (0.3-0.9 ms each way): they overlap the command instead of
		// delaying its start and the run's end
		sigs := make(chan os.Signal, 16)
		caught := make(chan struct{})
		go func() {
			signal.Notify(sigs, forwardedSignals...)
			close(caught)
		}()
		defer func() {
			go func() {
				<-caught
				signal.Stop(sigs)
			}()
		}()
		go relay(pctx, sigs, p)
	}
	return p.Wait(ctx)
}

// settled is how long a command runs before its supervisor gives back
// its mappings of the code that started it (resident.Release): from then
// on it mostly waits (for the command, the proxy's next request, a
// signal). An agent's supervisor sits so for hours; a connector's
// command is mostly over before.
const settled = 3 * time.Second

func relay(ctx context.Context, sigs <-chan os.Signal, p Process) {
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-sigs:
			_ = p.Signal(s)
		}
	}
}

// enforce turns the report into the layers to apply: everything that is
// not missing, and the namespaces only when fully available.
func (r *run) enforce() jailspec.Enforce {
	on := func(l Layer) bool { return r.report.Layer(l).Status != StatusMissing }
	mount := r.report.OK(LayerMount)
	return jailspec.Enforce{
		Cgroup:     on(LayerCgroup),
		Landlock:   on(LayerLandlock),
		Seccomp:    on(LayerSeccomp),
		NoNewPrivs: on(LayerNoNewPrivs),
		MountNS:    mount,
		PidNS:      mount && r.report.OK(LayerPid),
		NetNS:      mount && r.report.OK(LayerNetwork),
	}
}

// spec is what the jail needs to fork its init; complete adds the rest
// (the bus's environment, the file-system lists), while the init starts
// where the jail allows it, before the start otherwise.
func (r *run) spec(enf jailspec.Enforce, port int) (*Spec, error) {
	o := r.o
	dir := o.Dir
	if dir == "" {
		dir = o.Folder.Root
	}
	s := &Spec{
		Argv: o.Argv, Direct: o.Direct, Dir: dir,
		Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr,
		Net: jailspec.Net{ProxyPort: port}, Limits: o.Limits, Enforce: enf, Logger: r.log, Ended: o.Ended,
		Complete: func(s *Spec) error { return r.complete(s, port) },
	}
	if late, ok := r.jail.(interface{ CompletesSpecLate() bool }); !ok || !late.CompletesSpecLate() {
		if err := s.Complete(s); err != nil {
			return nil, err
		}
		s.Complete = nil
	}
	return s, nil
}

// complete waits for the run's bus (shims, policy cache), creates the bus
// directories and fills in the jail's environment and file-system lists.
func (r *run) complete(s *Spec, port int) error {
	if r.o.bus != nil {
		env, err := r.o.bus.env(r.o)
		if err != nil {
			return err
		}
		r.o.Env = env
		r.o.bus.applyRunPolicy(r.o)
	}
	if err := ensureBus(r.o); err != nil {
		return err
	}
	if err := r.prepareAgent(s.Enforce.MountNS); err != nil {
		return err
	}
	s.Env = jailEnv(baseEnv(r.o), r.o, port, s.Enforce.NetNS)
	s.FS = buildFS(r.o, s.Enforce.MountNS, r.global)
	if s.Enforce.MountNS && r.views == nil {
		r.views = []string{}
		for _, view := range []func(root, stateDir string) (jailspec.Substitute, string, bool, error){hookView, excludeView} {
			sub, dir, ok, err := view(r.o.Folder.Root, r.o.StateDir)
			if err != nil {
				return err
			}
			if ok {
				s.FS.Substitutes = append(s.FS.Substitutes, sub)
			}
			if dir != "" {
				r.views = append(r.views, dir)
			}
		}
	}
	if s.Enforce.NetNS {
		s.Net.Forward = r.forwardPorts(port)
	}
	r.logPlan(s)
	return nil
}

// ensureBus creates the bus directories the jail's holes need (they are
// part of the layout `sandbox init` makes).
func ensureBus(o *Options) error {
	for _, d := range o.Folder.Subdirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("bus directory: %w", err)
		}
	}
	return nil
}

// ProxyURL is the proxy address the jail's environment carries.
func ProxyURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }
