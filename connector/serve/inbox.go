package serve

import (
	"context"
	"net/http"
	"time"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/inbox"
)

// add serves f unless it is served already, and returns its state.
func (s *Server) add(f Folder) (*folderState, bool) {
	fs := newFolderState(s, f)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old := s.byKey[fs.key]; old != nil {
		return old, false // the same folder twice
	}
	s.byKey[fs.key] = fs
	s.folders = append(s.folders, fs)
	return fs, true
}

// FolderCount is how many folders are served now.
func (s *Server) FolderCount() int { return len(s.list()) }

// list is the folders served now.
func (s *Server) list() []*folderState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*folderState(nil), s.folders...)
}

// join opens and serves an inbox member (not watched yet: the caller
// starts that), or updates the tag of one served already.
func (s *Server) join(m inbox.Member) (*folderState, error) {
	if fs := s.byRoot(m.Folder.Root); fs != nil {
		fs.setState(m.Tag.State)
		return nil, nil
	}
	f, closeFn, err := s.cfg.Open(m.Folder)
	if err != nil {
		s.mu.Lock()
		said := s.failed[m.Folder.Root] == err.Error()
		s.failed[m.Folder.Root] = err.Error()
		s.mu.Unlock()
		if !said { // once per error: it is tried again on the slow tick
			s.log.Warn("cannot serve an inbox folder", "agent", m.Tag.Agent, "folder", m.Folder.Root, "err", err)
		}
		return nil, err
	}
	tag := m.Tag
	f.Tag = &tag
	fs, added := s.add(f)
	if !added {
		closeFn()
		return nil, nil
	}
	s.mu.Lock()
	s.closers = append(s.closers, closeFn)
	s.mu.Unlock()
	return fs, nil
}

func (s *Server) byRoot(root string) *folderState {
	for _, fs := range s.list() {
		if fs.f.Root == root {
			return fs
		}
	}
	return nil
}

// followInbox serves the agents spawned while the server runs, and keeps
// the registry's state of every agent. An agent removed from the
// registry stays served (its finished requests remain to be seen) and
// reads as "removed".
func (s *Server) followInbox(ctx context.Context, first []inbox.Member, updates <-chan []inbox.Member) {
	defer s.wg.Done()
	last := first
	// A member whose folder could not be opened (a spawn still setting
	// the worktree up) is tried again on the slow tick: the registry's
	// list may not change again to bring it back.
	slow := time.NewTicker(recoverEvery)
	defer slow.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case ms, ok := <-updates:
			if !ok {
				return
			}
			last = ms
			s.syncInbox(ctx, ms)
		case <-slow.C:
			for _, m := range last {
				if s.byRoot(m.Folder.Root) == nil {
					s.syncInbox(ctx, last)
					break
				}
			}
		}
	}
}

func (s *Server) syncInbox(ctx context.Context, ms []inbox.Member) {
	present := map[string]bool{}
	for _, m := range ms {
		present[m.Folder.Root] = true
		if fs, err := s.join(m); err == nil && fs != nil {
			s.watch(ctx, []*folderState{fs})
			s.hub.publish(Event{Type: EventAgents, Folder: fs.key})
		}
	}
	for _, fs := range s.list() {
		if fs.tag != nil && !fs.tag.IsMain() && !present[fs.f.Root] {
			fs.setState("removed")
		}
	}
	s.hub.publish(Event{Type: EventAgents})
}

func (s *Server) closeFolders() {
	s.mu.Lock()
	closers := s.closers
	s.closers = nil
	s.mu.Unlock()
	for _, c := range closers {
		c()
	}
}

func (fs *folderState) setState(st string) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.agentState = st
}

func (fs *folderState) state() string {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.agentState
}

// tagView adds to v whose folder the request arrived in (in an inbox).
func (fs *folderState) tagView(v *RequestView) *RequestView {
	if fs.tag != nil {
		v.Agent, v.Branch, v.Worktree = display.EscapeLine(fs.tag.Agent), display.EscapeLine(fs.tag.Branch), display.EscapeLine(fs.tag.Worktree)
	}
	return v
}

// AgentView is one entry of GET /api/agents: a folder of the inbox and
// its agent's state as the approver sees it (the registry's state, and
// "waiting" while it has requests pending for a human).
type AgentView struct {
	Agent    string `json:"agent"`
	Main     bool   `json:"main,omitempty"`
	Branch   string `json:"branch,omitempty"`
	Worktree string `json:"worktree,omitempty"`
	Folder   string `json:"folder"` // the folder's key
	State    string `json:"state,omitempty"`
	Status   string `json:"status"`
	Pending  int    `json:"pending"`
}

// handleAgents is GET /api/agents: {"agents": [...]}, MAIN first; empty
// when the server does not serve a repository's inbox.
func (s *Server) handleAgents(w http.ResponseWriter, r *http.Request) {
	out := []AgentView{}
	for _, fs := range s.list() {
		if fs.tag == nil {
			continue
		}
		fs.refresh()
		p, _ := fs.track.snapshot()
		st := fs.state()
		v := AgentView{Agent: display.EscapeLine(fs.tag.Agent), Main: fs.tag.IsMain(), Branch: display.EscapeLine(fs.tag.Branch),
			Worktree: display.EscapeLine(fs.tag.Worktree), Folder: fs.key, State: display.EscapeLine(st), Pending: len(p)}
		v.Status = inbox.Status(st, len(p))
		if v.Main {
			v.Status = ""
		}
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"agents": out})
}
