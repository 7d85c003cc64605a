package launcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/shims"
)

// BusOptions wire one run to its folder's bus.
type BusOptions struct {
	Folder folder.Folder
	// State is the per-user state (default: userstate.Open(true)).
	State *userstate.State
	// Agent names the agent, for the requests (default: the command's
	// base name).
	Agent string
	// CI makes the supervisor the approver of its own run's requests,
	// deciding by the policy's ci: section (see CIApprover).
	CI bool
	// Exe is the sandbox binary the shims link to (default: this
	// executable).
	Exe string
	// NetWait bounds a connection's wait for a human (DefaultNetWait).
	NetWait time.Duration
	Logger  *slog.Logger
	// Memo, when set, keeps the folder's engine and what the shims need
	// between the runs of a long-running process (the hook server); nil
	// does it all anew.
	Memo *BusMemo
	// Loaded, when set, is the folder's accepted policy as its opener
	// has just loaded it (store.Load, its warnings told): the bus's first
	// load, not made again. Every later load (each decision) reads the
	// files.
	Loaded *policy.Engine
	// NoHookCheckpoints: no agent's hook runs in this jail (connector
	// mode's one command; its hook ran outside and kept what it needed),
	// so Serve starts no checkpoint server.
	NoHookCheckpoints bool
}

// Bus is a run's side of the folder bus: the PATH shims and their policy
// cache, the proxy's PolicyDecider, the withdrawals that jailed shims ask
// for, and in CI mode the CI approver. Open it before Run, Apply it to
// the run's Options, Serve it while the run lasts, Close it after.
type Bus struct {
	f       folder.Folder
	st      *userstate.State
	q       *queue.Queue
	audit   *audit.Log
	session string
	agent   string
	names   []string
	log     *slog.Logger
	noCkpt  bool // BusOptions.NoHookCheckpoints
	memo    *BusMemo
	decider *PolicyDecider
	ci      *CIApprover // nil unless CI mode

	// ready is closed when the policy is loaded and the shims are
	// installed (prepare); readyErr and names are set before.
	ready    chan struct{}
	readyErr error
	loaded   chan struct{}  // closed once prepare's policy load is done
	engine   *policy.Engine // set before loaded is closed: the first load's engine, nil if it failed

	mu      sync.Mutex
	cacheOf string // guarded by mu: the policy hash the shim cache holds
}

// OpenBus opens the queue and the audit log and prepares the decider
// (and the CI approver). The policy load and the shims' installation go
// on in the background, overlapping the jail's start: Run waits for them
// (through Apply) before it configures the jail, and reports their
// failure; Serve and Close wait for them too.
func OpenBus(o BusOptions) (b *Bus, err error) {
	b = &Bus{f: o.Folder, st: o.State, agent: o.Agent, log: o.Logger, noCkpt: o.NoHookCheckpoints, memo: o.Memo}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if b.st == nil {
		if b.st, err = userstate.Open(true); err != nil {
			return nil, err
		}
	}
	if b.q, err = queue.Open(b.f, queue.WithLogger(b.log), queue.WithKey(b.st.Key)); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			b.Close()
		}
	}()
	if b.audit, err = audit.Open(b.f, b.st, audit.WithLogger(b.log)); err != nil {
		return nil, err
	}
	b.session = "run-" + queue.NewID()
	b.decider = &PolicyDecider{load: b.load, q: b.q, audit: b.audit, root: b.f.Root,
		session: b.session, agent: b.agent, wait: cmpDuration(o.NetWait, DefaultNetWait), log: b.log, first: b.Policy}
	if o.CI {
		b.ci = newCIApprover(b)
	}
	b.ready, b.loaded = make(chan struct{}), make(chan struct{})
	go b.prepare(o.Exe, o.Loaded)
	return b, nil
}

// prepare loads the policy (or takes loaded), installs the shims and
// opens the CI approver.
func (b *Bus) prepare(exe string, loaded *policy.Engine) {
	defer close(b.ready)
	var err error
	e := loaded
	if e == nil {
		e, err = b.load()
	} else {
		b.refreshCache(e) // what load does after it reads
	}
	b.engine = e
	close(b.loaded)
	if err == nil {
		err = b.installShims(exe, e)
	}
	if err == nil && b.ci != nil {
		err = b.ci.open()
	}
	b.readyErr = err
}

// wait waits for prepare and returns its error.
func (b *Bus) wait() error {
	<-b.ready
	return b.readyErr
}

// Policy waits for the bus's first load of the folder's policy and
// returns it (nil when it could not be loaded; the run then fails when it
// waits for the bus).
func (b *Bus) Policy() *policy.Engine {
	<-b.loaded
	return b.engine
}

// load reads the accepted policy and keeps the shims' cache current.
func (b *Bus) load() (*policy.Engine, error) {
	var e *policy.Engine
	var warns []store.Warning
	var err error
	if b.memo != nil {
		e, warns, err = b.memo.Policies.Load(b.f, b.st)
	} else {
		e, warns, err = store.Load(b.f, b.st, b.log)
	}
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		b.log.Warn("policy", "warning", w)
	}
	b.refreshCache(e)
	return e, nil
}

// refreshCache rewrites the shim policy cache when the accepted policy
// changed (a human accepted a new one during the run).
func (b *Bus) refreshCache(e *policy.Engine) {
	var p *policy.Policy
	if e.Status() != policy.StatusNothingAccepted {
		p = e.Policy()
	}
	hash := ""
	if p != nil {
		hash = p.SHA256
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cacheOf == hash && hash != "" {
		return
	}
	if !b.memo.cacheCurrent(b.f.Shims(), hash) {
		if err := shims.WriteCache(b.f.Shims(), p); err != nil {
			b.log.Warn("shim policy cache", "err", err)
			return
		}
		b.memo.cacheWritten(b.f.Shims(), hash)
	}
	b.cacheOf = hash
}

// installShims links the policy's shims (or the default list).
func (b *Bus) installShims(exe string, e *policy.Engine) error {
	b.names = shimNames(e)
	exe, err := shimTarget(exe)
	if err != nil {
		return err
	}
	if b.memo.linksCurrent(b.f.Shims(), exe, b.names) {
		return nil
	}
	if err := shims.Install(b.f.Shims(), exe, b.names); err != nil {
		return err
	}
	b.memo.linksInstalled(b.f.Shims(), exe, b.names)
	return nil
}

// shimNames is the shims of policy e: its `shims:`, or the default list.
func shimNames(e *policy.Engine) []string {
	if e.Status() != policy.StatusNothingAccepted && e.Policy().Shims != nil {
		return e.Policy().Shims
	}
	return shims.Default
}

// thisBinary is the running executable, links resolved: what the shims
// link to.
func thisBinary() (string, error) {
	p, err := os.Executable()
	if err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		return "", fmt.Errorf("shims: %w", err)
	}
	return p, nil
}

// PrepareShims links folder f's shims for policy e ahead of its first
// run (a new agent's worktree, while git checks it out), to exe or, when
// exe is "", to this binary. The run's bus checks each one again and
// replaces what is not the binary.
func PrepareShims(f folder.Folder, e *policy.Engine, exe string) error {
	exe, err := shimTarget(exe)
	if err != nil {
		return err
	}
	return shims.Install(f.Shims(), exe, shimNames(e))
}

// shimTarget is what the shims link to: exe with its links resolved, or
// this binary when exe is "". PrepareShims and the bus both link to it,
// so that the bus finds the shims prepared ahead current.
func shimTarget(exe string) (string, error) {
	if exe == "" {
		return thisBinary()
	}
	if p, err := filepath.EvalSymlinks(exe); err == nil {
		return p, nil
	}
	return exe, nil
}

// Session is the run's session id, carried by its requests.
func (b *Bus) Session() string { return b.session }

// Decider is the proxy's NetDecider for this run.
func (b *Bus) Decider() *PolicyDecider { return b.decider }

// CI is the CI approver (nil unless CI mode).
func (b *Bus) CI() *CIApprover { return b.ci }

// Apply sets o's Decider, ShimDir and CI flag, and has Run add the
// shims' variables to the jail's environment once the bus is ready.
func (b *Bus) Apply(o *Options) {
	o.Decider, o.ShimDir, o.CI, o.bus = b.decider, b.f.Shims(), b.ci != nil, b
}

// env waits for the bus and returns o's base environment with the shims'
// variables.
func (b *Bus) env(o *Options) ([]string, error) {
	if err := b.wait(); err != nil {
		return nil, err
	}
	agent := b.agent
	if agent == "" {
		agent = agentName(o)
	}
	var extra []string
	for _, n := range b.names {
		if !slices.Contains(shims.Default, n) {
			extra = append(extra, n)
		}
	}
	set := map[string]string{
		shims.EnvSession: b.session, shims.EnvDir: b.f.Shims(), shims.EnvAgent: agent,
		shims.EnvNames: strings.Join(extra, ","),
	}
	env := make([]string, 0, len(baseEnv(o))+len(set))
	for _, kv := range baseEnv(o) {
		if k, _, _ := strings.Cut(kv, "="); !isSet(set, k) {
			env = append(env, kv)
		}
	}
	for _, k := range []string{shims.EnvSession, shims.EnvDir, shims.EnvAgent, shims.EnvNames} {
		env = append(env, k+"="+set[k])
	}
	if b.noCkpt {
		env = append(env, shims.EnvNoCheckpoints+"=1")
	}
	return env, nil
}

func isSet(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// Serve runs the supervisor's side of the bus until ctx ends: it
// withdraws what jailed shims ask to withdraw, takes the checkpoints
// jailed hooks ask for (ckptserve.go) and, in CI mode, decides
// the run's requests. It returns when every decision it started is done.
func (b *Bus) Serve(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		shims.ServeWithdrawals(ctx, b.q, b.session, b.log)
	}()
	go func() {
		defer wg.Done()
		if !b.noCkpt {
			newCkptServer(b.f, b.st, b.session, b.log).serve(ctx)
		}
	}()
	if b.ci != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if b.wait() == nil {
				b.ci.Serve(ctx)
			}
		}()
	}
	wg.Wait()
	b.withdrawLeftovers()
}

// withdrawLeftovers withdraws the run's requests that are still pending
// when it ends: their shims died with the jail, nobody waits for them.
func (b *Bus) withdrawLeftovers() {
	reqs, _ := b.q.Pending()
	for _, r := range reqs {
		if r.Session == b.session {
			err := b.q.Withdraw(r.ID, "the run ended before anyone decided")
			b.log.Info("withdrew a request of the ended run", "id", r.ID, "err", err)
		}
	}
}

// Close releases the queue and the audit log.
func (b *Bus) Close() error {
	if b.ready != nil {
		<-b.ready // prepare still uses the queue and the audit log
	}
	var errs []error
	if b.audit != nil {
		errs = append(errs, b.audit.Close())
	}
	if b.q != nil {
		errs = append(errs, b.q.Close())
	}
	return errors.Join(errs...)
}

func cmpDuration(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// applyRunPolicy hands the accepted policy's run-mode settings to o: the
// environment's keep and drop lists, and the read rules whose concrete
// paths the jail hides.
func (b *Bus) applyRunPolicy(o *Options) {
	e := b.engine
	if e == nil || e.Status() == policy.StatusNothingAccepted {
		return
	}
	p := e.Policy()
	o.EnvKeep = append(o.EnvKeep, p.Run.Env.Keep...)
	o.EnvDrop = append(o.EnvDrop, p.Run.Env.Drop...)
	if rs := p.Rules[policy.Read]; rs != nil {
		for _, list := range [][]*policy.Rule{rs.Deny, rs.Escalate} {
			for _, r := range list {
				o.HideReads = append(o.HideReads, r.Pattern)
			}
		}
	}
}
