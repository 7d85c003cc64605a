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
	r := newRun(&o)
	weak, err := r.check()
	if err != nil {
		return Result{NotEnforced: weak}, err
	}
	if w := NotEnforcedWarning(weak); w != "" && o.Stderr != nil {
		io.WriteString(o.Stderr, w)
	}
	st, err := r.run(ctx)
	return Result{ExitStatus: st, NotEnforced: weak}, err
}

// run is one Run in progress.
type run struct {
	o      *Options
	jail   Jail
	report Report
	log    *slog.Logger
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
	if err := ensureBus(r.o); err != nil {
		return ExitStatus{}, err
	}
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
	p, err := r.jail.Start(ctx, r.spec(enf, port))
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
	return r.supervise(ctx, p, proxy, ln)
}

// supervise serves the proxy and forwards signals until the command ends.
func (r *run) supervise(ctx context.Context, p Process, proxy *Proxy, ln net.Listener) (ExitStatus, error) {
	pctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	if ln != nil {
		go proxy.Serve(pctx, ln)
	}
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

func (r *run) spec(enf jailspec.Enforce, port int) *Spec {
	o := r.o
	dir := o.Dir
	if dir == "" {
		dir = o.Folder.Root
	}
	return &Spec{
		Argv: o.Argv, Env: jailEnv(baseEnv(o), o, port, enf.NetNS), Dir: dir,
		Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr,
		FS: buildFS(o), Net: jailspec.Net{ProxyPort: port},
		Limits: o.Limits, Enforce: enf, Logger: r.log,
	}
}

// ensureBus creates the bus directories the jail's holes need (they are
// part of the layout `sandbox init` makes).
func ensureBus(o *Options) error {
	if o.Folder.Root == "" {
		return errors.New("launcher: no project folder")
	}
	for _, d := range o.Folder.Subdirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("bus directory: %w", err)
		}
	}
	return nil
}

// ProxyURL is the proxy address the jail's environment carries.
func ProxyURL(port int) string { return "http://127.0.0.1:" + strconv.Itoa(port) }
