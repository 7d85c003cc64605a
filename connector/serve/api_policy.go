package serve

import "net/http"

// handlePolicy is GET /api/policy[?folder=KEY]: each folder's policy
// state with the diff of a pending change: {"folders": [...]}.
func (s *Server) handlePolicy(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Policies == nil {
		fail(w, errNoPolicies)
		return
	}
	folders, err := s.selected(r.URL.Query().Get("folder"))
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]*PolicyView, 0, len(folders))
	for _, fs := range folders {
		v, _ := fs.policy()
		out = append(out, v)
	}
	writeJSON(w, http.StatusOK, map[string]any{"folders": out})
}

// acceptBody is the body of POST /api/policy/accept: the folder (may be
// left out when one is served) and the SHA-256 of the policy.yaml whose
// diff the human saw.
type acceptBody struct {
	Folder string `json:"folder"`
	SHA256 string `json:"sha256"`
}

func (s *Server) handleAccept(w http.ResponseWriter, r *http.Request) {
	var body acceptBody
	if err := decodeBody(r, &body); err != nil {
		fail(w, err)
		return
	}
	fs, err := s.folder(body.Folder)
	if err != nil {
		fail(w, err)
		return
	}
	v, err := fs.acceptPolicy(body.SHA256)
	if err != nil {
		fail(w, err)
		return
	}
	if pv := fs.policyChanged(); pv != nil {
		s.hub.publish(Event{Type: EventPolicy, Folder: fs.key, Policy: pv})
	}
	writeJSON(w, http.StatusOK, v)
}
