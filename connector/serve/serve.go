// Package serve is the approver dashboard behind `sandbox serve`: a REST
// API, a WebSocket of live events and an embedded web page for one or
// many project folders. It is an approver like `sandbox watch`: an
// approval through it is executed by the broker inside this process,
// through connector/approver with Surface "serve", so a forged file or
// another process never turns into an execution. Every text the agent
// controls is escaped with connector/display before it leaves the server;
// the page shows it with textContent only. docs/DASHBOARD.md describes
// the routes and the security model.
package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Folder is one project folder the server decides for.
type Folder struct {
	// Approver decides as Surface "serve"; its queue is the folder's.
	Approver *approver.Approver
	// Audit receives the server's own records (quarantined files, policy
	// acceptance); usually the log the approver writes to.
	Audit audit.Appender
	// Review describes requests for display (the policy's hits recomputed,
	// where an approval runs, whether anybody waits); nil: one over the
	// folder with Config.State and the broker's default environment.
	Review *review.Source
	// Tag, in a repository's inbox, is whose folder it is (MAIN or an
	// agent's worktree): every request of the folder is shown with it.
	Tag *inbox.Tag
}

// Config configures New. Addr, Token, State and at least one folder are
// required.
type Config struct {
	Folders []Folder
	// Inbox, when set, is a repository's inbox: its members (MAIN and
	// every registered agent's worktree) are served besides Folders,
	// opened with Open, and read again as the registry changes (agents
	// spawned later are served from then on).
	Inbox      inbox.Source
	Open       func(folder.Folder) (Folder, func(), error)
	InboxEvery time.Duration // how often the registry is read (default inbox.FollowEvery)
	// Notify tells the human when an agent starts waiting.
	Notify *inbox.Notifier
	// Addr is the address the listener is bound to (host:port): the only
	// Host header accepted, with "localhost:PORT" when it is loopback and
	// the names in ExtraHosts.
	Addr       string
	ExtraHosts []string
	// TLS says the page is served over https (the accepted Origin's scheme).
	TLS bool
	// Token authorises every API call (NewToken makes one); the page uses
	// tokens of its own, got with a one-time code (NewCode).
	Token string
	// State is the per-user state: its key verifies and reads the audit log.
	State *userstate.State
	// Policies shows and accepts pending policy changes; nil: the policy
	// routes answer 501.
	Policies Policies
	// Poll, when set, is how often folders are looked at where file
	// notification is unavailable (default 1 s).
	Poll   time.Duration
	Logger *slog.Logger
	// Team, when set, serves team mode instead of folders (team.go).
	Team *Team
}

// Server is a running dashboard: call Handler for its routes and Close to
// stop its watchers and the executions it started.
type Server struct {
	cfg     Config
	log     *slog.Logger
	hub     *hub
	guard   *guard
	started time.Time
	handler http.Handler

	runCtx  context.Context // executions: cancelled by Close only
	stopRun context.CancelFunc
	stop    context.CancelFunc // watchers
	wctx    context.Context    // the watchers' context: folders joining later
	wg      sync.WaitGroup     // watchers and executions

	mu sync.Mutex
	// Guarded by mu: the executions in flight in this process, the
	// folders served (an inbox adds the agents spawned meanwhile), what
	// closes the folders the server opened itself, and the inbox folders
	// that could not be opened (root -> error, logged once).
	running int
	team    teamState
	folders []*folderState
	byKey   map[string]*folderState
	closers []func()
	failed  map[string]string
}

// New starts watching cfg's folders and returns the server. ctx bounds
// the watchers (Close also stops them).
func New(ctx context.Context, cfg Config) (*Server, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	g, err := newGuard(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: log, hub: newHub(log), guard: g, started: time.Now().UTC(), byKey: map[string]*folderState{}, failed: map[string]string{}}
	s.runCtx, s.stopRun = context.WithCancel(context.WithoutCancel(ctx))
	for _, f := range cfg.Folders {
		s.add(f)
	}
	wctx, stop := context.WithCancel(ctx)
	s.stop, s.wctx = stop, wctx
	var first []inbox.Member
	var updates <-chan []inbox.Member
	if cfg.Inbox != nil {
		var ch <-chan []inbox.Member
		first, ch, err = inbox.Follow(wctx, cfg.Inbox, cmp.Or(cfg.InboxEvery, inbox.FollowEvery), log)
		if err != nil {
			stop()
			return nil, err
		}
		for i, m := range first {
			if _, err := s.join(m); err != nil && i == 0 {
				stop()
				s.closeFolders()
				return nil, err
			}
		}
		updates = ch
	}
	s.watch(wctx, s.list())
	if cfg.Team != nil {
		s.team.deciding = map[string]bool{}
		s.followTeam(wctx)
	}
	if updates != nil {
		s.wg.Add(1)
		go s.followInbox(wctx, first, updates)
	}
	s.handler = s.routes()
	return s, nil
}

func (c *Config) check() error {
	switch {
	case c.Team != nil && (len(c.Folders) > 0 || c.Inbox != nil):
		return errors.New("serve: team mode serves no folders")
	case c.Team != nil && c.Team.Source == nil:
		return errors.New("serve: team mode needs its source")
	case len(c.Folders) == 0 && c.Inbox == nil && c.Team == nil:
		return fmt.Errorf("serve: %w", ErrNoFolders)
	case c.Inbox != nil && c.Open == nil:
		return errors.New("serve: an inbox needs Open")
	case c.Addr == "":
		return errors.New("serve: the bound address is required")
	case len(c.Token) < minTokenLen:
		return fmt.Errorf("serve: %w", ErrWeakToken)
	case c.State == nil:
		return errors.New("serve: the per-user state is required")
	}
	for _, f := range c.Folders {
		if f.Approver == nil || f.Audit == nil {
			return errors.New("serve: every folder needs an approver and an audit log")
		}
	}
	return nil
}

// Handler returns the server's routes behind its security checks.
func (s *Server) Handler() http.Handler { return s.handler }

// Close stops the watchers and the WebSocket clients, cancels the
// executions still running (the broker kills them and records their
// result) and waits for them, at most until ctx ends.
func (s *Server) Close(ctx context.Context) error {
	s.stop()
	s.stopRun()
	s.hub.close()
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
		s.closeFolders()
		return nil
	case <-ctx.Done():
		return fmt.Errorf("serve: close: %w", ctx.Err())
	}
}

// execute runs fn (an approval or a remembered decision) on the server's
// context, not the HTTP request's: a browser that goes away does not kill
// what its human approved.
func (s *Server) execute(fn func(ctx context.Context)) {
	s.mu.Lock()
	s.running++
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			s.running--
			s.mu.Unlock()
		}()
		fn(s.runCtx)
	}()
}

func (s *Server) runningCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}
