package live

import (
	"context"
	"fmt"
	"github.com/sandbox-dev/sandbox/shims"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// policyCacheName is the compiled policy the run's supervisor keeps in the
// shim directory for the shims (shims.CachePath; a test checks that the
// names agree). The jail can read it but not write it.
const policyCacheName = ".policy-cache"

// runSessionVar is the run's session in the jail's environment
// (shims.EnvSession; a test checks that the names agree).
const runSessionVar = "SANDBOX_SESSION"

// maxPolicyCache bounds the cache read.
const maxPolicyCache = 4 << 20

// openInside is Open inside `sandbox run`'s jail. The per-user state (the
// key, the accepted-policy record) is hidden there, so the hook takes its
// decisions from the trusted side instead of failing: the policy the
// supervisor accepted and compiled for the shims, and a request on the
// folder bus, decided by a human outside the jail, for everything it does
// not allow. The cache is not signed, which is fine for the same reason
// as the shims': an "allow" lets a call run in the jail, which the jailed
// agent could do without asking, and a missing or unreadable cache
// escalates every call rather than refusing it. Nothing is appended to the
// audit log (its key is out of reach; the approver audits what it
// decides), and no originals are kept (the jail cannot write .sandbox/).
// Checkpoints are taken by the run's supervisor, asked over the bus
// (ckptbus.go), when the hook runs under a run that serves them.
func openInside(f folder.Folder, o Options, log *slog.Logger) (*hook.Core, error) {
	core := &hook.Core{
		Folder: f, Log: log, JailState: hook.JailInside,
		Options: hook.Options{Wait: o.Wait, DeferAllow: o.DeferAllow, BeforeWait: o.BeforeWait},
	}
	if s := os.Getenv(runSessionVar); s != "" && os.Getenv(shims.EnvNoCheckpoints) != "1" {
		core.Checkpoints = &busCheckpointer{f: f, runSession: s}
	}
	if o.Classify {
		eng, err := cachedPolicy(f, log)
		if err != nil {
			return nil, err
		}
		core.Policy = eng
		if eng.Status() != policy.StatusNothingAccepted {
			h := eng.Settings().Hook
			core.Options.DeferAllow = core.Options.DeferAllow || h.DeferAllow
			if core.Options.Wait == 0 {
				core.Options.Wait = h.Wait
			}
		}
	}
	core.Queue = func() (hook.Queue, error) {
		q, err := queue.Open(f, queue.WithLogger(log))
		if err != nil {
			return nil, err
		}
		core.OnClose(q.Close)
		return direct{q}, nil
	}
	return core, nil
}

// direct submits without the bus lock and the join index, which live in
// directories the jail cannot write (as the shims do): the same call
// asked twice from inside the jail is two requests, which the approver
// shows side by side.
type direct struct{ *queue.Queue }

func (d direct) Submit(ctx context.Context, r *queue.Request) (string, bool, error) {
	id, err := d.Queue.SubmitDirect(ctx, r)
	return id, false, err
}

func (d direct) Wait(ctx context.Context, id string) (*queue.Result, error) {
	return d.Queue.WaitKeep(ctx, id)
}

// cachedPolicy is the engine of the supervisor's policy cache, or of no
// accepted policy (every call escalates, bar the built-in denials) when
// the cache cannot be read.
func cachedPolicy(f folder.Folder, log *slog.Logger) (*policy.Engine, error) {
	p, err := readCache(filepath.Join(f.Shims(), policyCacheName))
	if err != nil {
		log.Warn("policy cache out of reach: escalating every call", "err", err)
		p = nil
	}
	eng, err := policy.New(f.Root, p, policy.Options{Logger: log})
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return eng, nil
}

func readCache(path string) (*policy.Policy, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, maxPolicyCache+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPolicyCache {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, maxPolicyCache)
	}
	return policy.DecodeCompiled(data)
}
