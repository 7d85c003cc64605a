// Package watch is the terminal approver behind `sandbox watch`: it shows
// the pending requests of one or more folders one at a time, escaped and
// paged (nothing is approved before all of it has been on the screen),
// and acts on the human's keys: single keys on a terminal switched to raw
// mode (escape sequences filtered, a small line editor for patterns and
// reasons), whole lines with Config.Plain or off a terminal. Approved
// requests run in this process through connector/approver, their output
// shown live. The same renderer prints a request for `sandbox show` and
// `sandbox approve`; cmd/sandbox parses the flags and opens the folders.
package watch

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Folder is one watched folder, opened by the caller.
type Folder struct {
	Folder folder.Folder
	// State is the per-user state: remembered decisions and the accepted
	// policy are signed with its key.
	State *userstate.State
	// Approver decides as Surface "watch"; its queue is the folder's.
	Approver *approver.Approver
	// Audit receives watch's own records (quarantined files, learned
	// rules, policy acceptance); usually the log the approver writes to.
	Audit audit.Appender
	// Review describes requests for display (the policy's hits recomputed,
	// where an approval runs, whether anybody waits).
	Review *review.Source
}

// Config configures Run.
type Config struct {
	// Folders are the folders to watch, opened one after another by Open
	// with the logger of the session (its records go to watch.log in the
	// per-user state, not onto the screen). The function Open returns
	// closes what it opened; it runs when Run returns.
	Folders []folder.Folder
	Open    func(folder.Folder, *slog.Logger) (*Folder, func(), error)
	// In is the human's input: single keys when it is a terminal (and not
	// Plain), whole lines otherwise. Out is the screen.
	In    io.Reader
	Out   io.Writer
	Plain bool
	// Inbox, when set, is a repository's inbox: its members (MAIN and
	// every registered agent's worktree) are watched instead of Folders,
	// read again as the registry changes, and every request is tagged
	// with the agent of the folder it arrived in.
	Inbox inbox.Source
	// Notify tells the human outside this terminal when an agent starts
	// waiting (the terminal's bell rings for every arrival anyway).
	Notify *inbox.Notifier
}

// Run watches until the human quits, the input ends or ctx is cancelled
// (the terminal's mode is restored then too).
func Run(ctx context.Context, cfg Config) error {
	screen := &termWriter{w: cfg.Out}
	logger, closeLog := newWatchLogger(screen)
	defer closeLog()
	s := &watchSession{
		terminal: terminal{out: screen, fd: -1, plain: cfg.Plain}, log: logger, openEnv: cfg.Open, notify: cfg.Notify,
		known: map[string]bool{}, skipped: map[string]bool{}, autoTried: map[string]bool{}, problems: map[string]bool{},
		changed: make(chan struct{}, 1),
	}
	defer s.closeAll()
	if cfg.Notify != nil {
		if cfg.Notify.Log == nil {
			cfg.Notify.Log = logger
		}
		defer cfg.Notify.Wait()
	}
	members := make([]inbox.Member, len(cfg.Folders))
	for i, f := range cfg.Folders {
		members[i] = inbox.Member{Folder: f}
	}
	if cfg.Inbox != nil {
		first, updates, err := inbox.Follow(ctx, cfg.Inbox, inbox.FollowEvery, logger)
		if err != nil {
			return err
		}
		members, s.updates, s.inbox, s.members = first, updates, true, first
	}
	for i, m := range members {
		if err := s.open(ctx, m); err != nil && (i == 0 || !s.inbox) {
			return err
		}
	}
	restore := s.startInput(cfg.In, logger)
	defer restore()
	s.banner()
	s.showInterrupted()
	s.checkPolicy()
	return s.run(ctx)
}

func (s *watchSession) banner() {
	for _, wf := range s.folders {
		s.out.printf("sandbox watch: %s (as %s)%s\n", wf.env.Folder.Root, wf.env.Approver.Identity().User, s.tagNote(wf))
	}
	if s.tagged() {
		s.refresh()
		s.printAgents()
	}
	if !s.plain {
		s.out.printf("%s\n", fmt.Sprint("keys: ", watchKeys))
	}
}
