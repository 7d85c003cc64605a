// Package approver is the one place where a human's (or a remembered)
// decision on an escalated request becomes an execution. The process that
// approves is the broker that runs: it claims the request, audits the
// intent, runs exactly the bytes it read at the claim, writes the result
// and audits the outcome. `sandbox watch`, `sandbox approve/deny`, the
// dashboard and CI mode all decide through it.
package approver

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// DefaultMaxRead caps what an approved read returns (the result shows at
// most queue.DefaultOutputCap of it; the log holds it all).
const DefaultMaxRead = 1 << 20

// Options configure New. Queue, Audit and Identity are required.
type Options struct {
	Queue    *queue.Queue
	Audit    audit.Appender
	Memory   Memory // remembered decisions; nil: none
	Identity Identity
	// EnvPass is the policy's environment pass-list for the broker.
	EnvPass []string
	// Timeout bounds one execution (default: the broker's, 10 min).
	Timeout time.Duration
	// Jail runs each approved command in a grant jail of its own (the
	// project jail plus what the approval named: see GrantFor); nil runs
	// it as a child of this process (tests, and callers without a jail).
	Jail broker.Jailer
	// Policy loads the engine whose decision on a request names what its
	// grant jail grants; nil, or an error, grants nothing beyond the
	// project jail.
	Policy func() (*policy.Engine, error)
	Logger *slog.Logger
}

// Approver decides requests of one folder and executes what it approves.
// It is safe for concurrent use.
type Approver struct {
	q       *queue.Queue
	f       folder.Folder
	audit   audit.Appender
	memory  Memory
	id      Identity
	envPass []string
	timeout time.Duration
	jail    broker.Jailer
	policy  func() (*policy.Engine, error)
	log     *slog.Logger

	// Test hooks: afterClaim runs between the claim and the audit of the
	// intent; execHook at the start of execution (inside its recover).
	afterClaim func(c *queue.Claim)
	execHook   func(c *queue.Claim)
}

// New returns an Approver for opts.Queue's folder.
func New(opts Options) (*Approver, error) {
	if opts.Queue == nil || opts.Audit == nil {
		return nil, errors.New("approver: a queue and an audit log are required")
	}
	if opts.Identity.User == "" || opts.Identity.Surface == "" {
		return nil, errors.New("approver: identity needs a user and a surface")
	}
	f := opts.Queue.Folder()
	if err := ensureDir(f.Results()); err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Approver{
		q: opts.Queue, f: f, audit: opts.Audit, memory: opts.Memory,
		id: opts.Identity, envPass: opts.EnvPass, timeout: opts.Timeout, log: log,
		jail: opts.Jail, policy: opts.Policy,
	}, nil
}

// Identity is who this approver decides as.
func (a *Approver) Identity() Identity { return a.id }

// Queue is the queue this approver decides on.
func (a *Approver) Queue() *queue.Queue { return a.q }

func (a *Approver) actor(who Identity) string { return "approver:" + who.Surface }

// ensureDir creates dir (results/) when missing and refuses anything but
// a real directory there: a link planted in its place would send the
// broker's logs elsewhere. It is private (0700): the logs hold the full
// output of approved commands and the content of approved reads.
func ensureDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("approver: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("approver: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("approver: %s: %w", dir, ErrNotRegular)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("approver: %w", err)
		}
	}
	return nil
}
