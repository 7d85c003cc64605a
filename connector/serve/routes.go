package serve

import (
	"net/http"
)

// routes is every route, behind the guard.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	if s.cfg.Team != nil {
		s.teamRoutes(mux)
		mux.Handle("GET /assets/", s.assets())
		mux.HandleFunc("POST /api/session", s.handleSession)
		mux.HandleFunc("POST /api/codes", s.handleCodes)
		mux.HandleFunc("GET /api/status", s.handleStatus)
		mux.HandleFunc("GET /api/events", s.handleEvents)
		return s.guard.wrap(mux)
	}
	mux.HandleFunc("GET /{$}", s.handleIndex)
	mux.Handle("GET /assets/", s.assets())
	mux.HandleFunc("POST /api/session", s.handleSession)
	mux.HandleFunc("POST /api/codes", s.handleCodes)
	mux.HandleFunc("GET /api/status", s.handleStatus)
	mux.HandleFunc("GET /api/folders", s.handleFolders)
	mux.HandleFunc("GET /api/agents", s.handleAgents)
	mux.HandleFunc("GET /api/batches", s.handleBatches)
	mux.HandleFunc("GET /api/requests", s.handleList)
	mux.HandleFunc("GET /api/requests/{id}", s.handleGet)
	mux.HandleFunc("POST /api/requests/{id}/approve", s.handleApprove)
	mux.HandleFunc("POST /api/requests/{id}/deny", s.handleDeny)
	mux.HandleFunc("POST /api/requests/{id}/remember", s.handleRemember)
	mux.HandleFunc("GET /api/requests/{id}/output", s.handleOutput)
	mux.HandleFunc("GET /api/audit", s.handleAudit)
	mux.HandleFunc("GET /api/audit/verify", s.handleVerify)
	mux.HandleFunc("GET /api/policy", s.handlePolicy)
	mux.HandleFunc("POST /api/policy/accept", s.handleAccept)
	mux.HandleFunc("GET /api/events", s.handleEvents)
	return s.guard.wrap(mux)
}
