package serve

import (
	"net/http"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
)

// Status is GET /api/status and the hello event.
type Status struct {
	User     string    `json:"user"`
	Surface  string    `json:"surface"`
	Addr     string    `json:"addr"`
	Started  time.Time `json:"started"`
	Folders  int       `json:"folders"`
	Pending  int       `json:"pending"`
	Claimed  int       `json:"claimed"`
	Running  int       `json:"running"` // executions in this process
	Clients  int       `json:"clients"` // WebSocket clients
	Policies bool      `json:"policies"`
}

// FolderView is one entry of GET /api/folders.
type FolderView struct {
	Key           string   `json:"key"`
	Root          string   `json:"root"`
	Pending       int      `json:"pending"`
	Claimed       int      `json:"claimed"`
	PolicyChanged bool     `json:"policy_changed"`
	Problems      []string `json:"problems,omitempty"`
}

func (s *Server) status() *Status {
	folders := s.list()
	st := &Status{Surface: approver.SurfaceServe, Addr: s.cfg.Addr, Started: s.started,
		Folders: len(folders), Running: s.runningCount(), Clients: s.hub.count(), Policies: s.cfg.Policies != nil}
	if len(folders) > 0 {
		st.User = display.EscapeLine(folders[0].ap.Identity().User)
	}
	for _, fs := range folders {
		fs.refresh()
		p, c := fs.track.snapshot()
		st.Pending += len(p)
		st.Claimed += len(c)
	}
	return st
}

func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.status())
}

func (s *Server) handleFolders(w http.ResponseWriter, r *http.Request) {
	folders := s.list()
	out := make([]FolderView, 0, len(folders))
	for _, fs := range folders {
		fs.refresh()
		p, c := fs.track.snapshot()
		v := FolderView{Key: fs.key, Root: display.EscapeLine(fs.f.Root), Pending: len(p), Claimed: len(c),
			Problems: fs.problemList()}
		if pv, _ := fs.policy(); pv != nil {
			v.PolicyChanged = pv.Changed
		}
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"folders": out})
}
