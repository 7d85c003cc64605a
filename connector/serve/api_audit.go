package serve

import (
	"fmt"
	"net/http"
	"strconv"
)

// Audit listing limits.
const (
	defaultAuditLimit = 200
	maxAuditLimit     = 1000
)

// handleAudit is GET /api/audit[?folder=KEY][&after=SEQ][&limit=N]: the
// newest limit records with seq > after of each folder, oldest first:
// {"records": [...]}. Sequence numbers are per folder.
func (s *Server) handleAudit(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	after, err := parseSeq(q.Get("after"))
	if err != nil {
		fail(w, err)
		return
	}
	limit, err := parseLimit(q.Get("limit"), defaultAuditLimit, maxAuditLimit)
	if err != nil {
		fail(w, err)
		return
	}
	folders, err := s.selected(q.Get("folder"))
	if err != nil {
		fail(w, err)
		return
	}
	out := []*RecordView{}
	for _, fs := range folders {
		recs, err := fs.records(r.Context(), after, limit)
		if err != nil {
			s.log.Warn("reading the audit log", "folder", fs.f.Root, "err", err)
		}
		out = append(out, recs...)
	}
	writeJSON(w, http.StatusOK, map[string]any{"records": out})
}

func parseSeq(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: after must be a sequence number", errBadBody)
	}
	return n, nil
}

// handleVerify is GET /api/audit/verify[?folder=KEY]: what `sandbox
// audit verify` says of each folder's log: {"folders": [...]}.
func (s *Server) handleVerify(w http.ResponseWriter, r *http.Request) {
	folders, err := s.selected(r.URL.Query().Get("folder"))
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]*VerifyView, 0, len(folders))
	for _, fs := range folders {
		out = append(out, fs.verify())
	}
	writeJSON(w, http.StatusOK, map[string]any{"folders": out})
}
