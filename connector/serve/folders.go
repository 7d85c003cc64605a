package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/display/review"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/inbox"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// maxProblems bounds the quarantine reports kept per folder.
const maxProblems = 50

// folderState is one served folder: its approver, what is on its bus as
// last seen, and the output of the requests running in it.
type folderState struct {
	s     *Server
	key   string
	f     folder.Folder
	q     *queue.Queue
	ap    *approver.Approver
	audit audit.Appender
	track *tracker
	out   *outputs
	src   *review.Source
	// moved is notified whenever results/ or the queue changes: output
	// streams wait on it.
	moved broadcast
	// pub serialises refreshes with their publication.
	pub sync.Mutex
	// sig carries the notifier's changes to the folder's worker.
	sig signals

	mu sync.Mutex
	// Guarded by mu: quarantine reports (escaped, newest last), and the
	// policy state last published.
	problems   []string
	seen       map[string]bool
	lastPolicy string
	// offers are the rules offered after approvals, by request id, until
	// the page takes one (offer.go); guarded by mu.
	offers map[string]offer
	// agentState is the registry's state of the folder's agent (inbox.go);
	// guarded by mu.
	agentState string
	// tag, in an inbox, is whose folder it is; set once.
	tag *inbox.Tag
}

func newFolderState(s *Server, f Folder) *folderState {
	q := f.Approver.Queue()
	fs := &folderState{s: s, key: folderKey(q.Folder().Root), f: q.Folder(), q: q, ap: f.Approver,
		audit: f.Audit, seen: map[string]bool{}, tag: f.Tag}
	if f.Tag != nil {
		fs.agentState = f.Tag.State
	}
	fs.src = f.Review
	if fs.src == nil {
		fs.src = &review.Source{Folder: fs.f, State: s.cfg.State, Log: s.log}
	}
	fs.track = newTracker(fs)
	fs.out = newOutputs(fs)
	return fs
}

// folderKey is a short stable name for a folder root, used in URLs.
func folderKey(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:5])
}

// folder returns the folder named by key, or the only one when key is
// empty and a single folder is served.
func (s *Server) folder(key string) (*folderState, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if key == "" && len(s.folders) == 1 {
		return s.folders[0], nil
	}
	if fs := s.byKey[key]; fs != nil {
		return fs, nil
	}
	return nil, fmt.Errorf("%q: %w", key, errNoFolder)
}

// locate finds the folder holding request id: the one named by key, else
// the only folder whose bus has the id (pending, claimed or done).
func (s *Server) locate(key, id string) (*folderState, error) {
	if !queue.ValidID(id) {
		return nil, fmt.Errorf("%q: %w", id, approver.ErrBadID)
	}
	folders := s.list()
	if key != "" || len(folders) == 1 {
		return s.folder(key)
	}
	var found *folderState
	for _, fs := range folders {
		if !fs.has(id) {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("%s: %w", id, errAmbiguous)
		}
		found = fs
	}
	if found == nil {
		return nil, fmt.Errorf("%s: %w", id, approver.ErrNotFound)
	}
	return found, nil
}

// has reports whether id is on this folder's bus.
func (fs *folderState) has(id string) bool {
	_, _, err := fs.q.Load(id)
	return err == nil || !errors.Is(err, queue.ErrNotFound)
}

// report keeps (once) and audits the bad files the queue quarantined, as
// `sandbox watch` does; it returns the new ones.
func (fs *folderState) report(problems []queue.Problem) []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var fresh []string
	for _, p := range problems {
		msg := p.String()
		if fs.seen[msg] {
			continue
		}
		fs.seen[msg] = true
		fresh = append(fresh, display.EscapeLine(msg))
		fs.problems = append(fs.problems, display.EscapeLine(msg))
		if len(fs.problems) > maxProblems {
			fs.problems = fs.problems[1:]
		}
		fs.auditProblem(p)
	}
	if len(fs.seen) > 10*maxProblems {
		fs.seen = map[string]bool{}
	}
	return fresh
}

func (fs *folderState) auditProblem(p queue.Problem) {
	if p.Quarantined == "" {
		return
	}
	_, err := fs.audit.Append(audit.Entry{
		Actor: "approver:" + approver.SurfaceServe, Event: "request.quarantined", Decision: "quarantined",
		Detail: map[string]any{"file": display.EscapeLine(p.Name), "state": string(p.State), "error": p.Err.Error()},
	})
	if err != nil {
		fs.s.log.Error("could not audit a quarantined file", "folder", fs.f.Root, "err", err)
	}
}

func (fs *folderState) problemList() []string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return append([]string(nil), fs.problems...)
}

// broadcast wakes every waiter at the next notify, without blocking the
// notifier: each waiter gets a channel closed on the next change.
type broadcast struct {
	mu sync.Mutex
	ch chan struct{} // guarded by mu; nil until someone waits
}

func (b *broadcast) wait() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch == nil {
		b.ch = make(chan struct{})
	}
	return b.ch
}

func (b *broadcast) notify() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ch != nil {
		close(b.ch)
		b.ch = nil
	}
}
