package main

import (
	"errors"
	"github.com/sandbox-dev/sandbox/broker"
	"io"
	"log/slog"
	"os"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
)

// approverEnv is everything one folder's approver needs, opened together.
type approverEnv struct {
	f     folder.Folder
	st    *userstate.State
	q     *queue.Queue
	audit *audit.Log
	ap    *approver.Approver
	// src reviews requests for display: the policy's hits recomputed,
	// where an approval runs, whether anybody waits.
	src *review.Source
}

// openDecision resolves the folder and the request id (a unique prefix,
// or the only pending request) of `sandbox approve` and `deny`, and opens
// the approver that decides it from the command line.
func openDecision(dir *dirFlag, id *string, errw io.Writer) (*approverEnv, error) {
	f, err := dir.resolve(nil)
	if err != nil {
		return nil, err
	}
	if *id, err = resolveID(f, *id); err != nil {
		return nil, err
	}
	return openApprover(f, approver.SurfaceCLI, stderrLogger(errw))
}

// openApprover opens f's queue and audit log with the per-user state and
// returns an approver deciding as the current user through surface.
func openApprover(f folder.Folder, surface string, logger *slog.Logger) (*approverEnv, error) {
	if err := approver.RefuseNonHuman(); err != nil {
		return nil, err
	}
	st, err := userstate.Open(true)
	if err != nil {
		return nil, err
	}
	q, err := queue.Open(f, queue.WithLogger(logger), queue.WithKey(st.Key))
	if err != nil {
		return nil, err
	}
	lg, err := audit.Open(f, st, audit.WithLogger(logger))
	if err != nil {
		q.Close()
		return nil, err
	}
	pass := envPassList(f, st, logger)
	ap, err := approver.New(approver.Options{
		Queue: q, Audit: lg, Identity: approver.NewIdentity(surface), Logger: logger,
		Memory: approver.NewPolicyMemory(f, st, logger), EnvPass: pass,
		Jail: &launcher.GrantJail{Folder: f, StateDir: st.Dir, Logger: logger},
		Policy: func() (*policy.Engine, error) {
			e, _, err := store.Load(f, st, logger)
			return e, err
		},
	})
	if err != nil {
		lg.Close()
		q.Close()
		return nil, err
	}
	src := &review.Source{Folder: f, State: st, EnvPass: pass, Log: logger, Jail: grantLines(ap.GrantFor, pass)}
	return &approverEnv{f: f, st: st, q: q, audit: lg, ap: ap, src: src}, nil
}

// grantLines describes where an approved command would run: its grant
// jail and what it grants beyond the project jail, or, where Landlock is
// missing, that it runs with the user's full rights (in a cgroup of its
// own), as the broker will do.
func grantLines(grantFor func(*queue.Request, []string) broker.Grant, pass []string) func(*queue.Request) []string {
	return func(req *queue.Request) []string {
		rep := launcher.Probe()
		if l := rep.Layer(launcher.LayerLandlock); l.Status == launcher.StatusMissing {
			return broker.DescribeUnjailed("Landlock is missing (" + l.Detail + "); in a cgroup of its own, killed whole at the end")
		}
		return broker.Describe(grantFor(req, broker.Scrub(os.Environ(), pass)))
	}
}

// policyGrant is the grant an approver would give req (approver.GrantFor)
// for the commands that show a request without deciding it.
func policyGrant(f folder.Folder, st *userstate.State, log *slog.Logger) func(*queue.Request, []string) broker.Grant {
	return func(req *queue.Request, env []string) broker.Grant {
		e, _, err := store.Load(f, st, log)
		if err != nil || e == nil {
			return broker.Grant{}
		}
		home, _ := os.UserHomeDir()
		return broker.GrantFor(approver.Classify(e, req).Parts, f.Root, home, env)
	}
}

// envPassList is the accepted policy's broker.env: the variables approved
// commands receive from the approver's environment.
func envPassList(f folder.Folder, st *userstate.State, logger *slog.Logger) []string {
	e, _, err := store.Load(f, st, logger)
	if err != nil || e.Policy() == nil {
		return nil
	}
	return e.Policy().Broker.Env
}

func (e *approverEnv) Close() error {
	return errors.Join(e.audit.Close(), e.q.Close())
}

// stderrLogger reports warnings and errors of the libraries on w.
func stderrLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// userKey has the queue verify results with the per-user key when this
// process can read it (a reader without it, inside the jail, relies on
// done/ being read-only there; see docs/QUEUE.md).
func userKey() queue.Option {
	st, err := userstate.Open(false)
	if err != nil {
		return func(*queue.Queue) {}
	}
	return queue.WithKey(st.Key)
}
