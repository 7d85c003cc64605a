package serve

import (
	"net/http"
	"sync"
)

// maxSessions bounds the page credentials alive at once: each opened page
// holds one; a page that is closed or reloaded leaves its credential
// behind, so the oldest are dropped first.
const maxSessions = 64

// sessions are the one-time sign-in codes and the bearer tokens the page
// exchanges them for. Nothing is ever put in a cookie: browsers send a
// cookie of 127.0.0.1 to every port of that host, so any local server the
// approver's browser visits (an agent's dev server) would receive it. A
// code is printed by `sandbox serve` in the address's fragment (never sent
// to a server by the browser), and the page trades it once, with a POST,
// for a token it keeps in a JavaScript variable only.
type sessions struct {
	mu sync.Mutex
	// codes are the unused sign-in codes; tokens the live page tokens,
	// oldest first (guarded by mu).
	codes  map[string]bool
	tokens []string
}

// newCode makes a one-time sign-in code.
func (s *sessions) newCode() (string, error) {
	c, err := NewToken()
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.codes == nil {
		s.codes = map[string]bool{}
	}
	s.codes[c] = true
	return c, nil
}

// exchange spends code and returns a fresh page token; ok is false for a
// code that is unknown or was spent already.
func (s *sessions) exchange(code string) (token string, ok bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.codes {
		if tokenEqual(code, c) {
			delete(s.codes, c)
			ok = true
			break
		}
	}
	if !ok {
		return "", false, nil
	}
	if token, err = NewToken(); err != nil {
		return "", false, err
	}
	s.tokens = append(s.tokens, token)
	if len(s.tokens) > maxSessions {
		s.tokens = s.tokens[len(s.tokens)-maxSessions:]
	}
	return token, true, nil
}

// valid reports whether token is a live page token.
func (s *sessions) valid(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	found := false
	for _, t := range s.tokens {
		found = tokenEqual(token, t) || found
	}
	return found
}

// NewCode makes a one-time sign-in code for the page: open
// BASE/#code=CODE. `sandbox serve` prints one at start.
func (s *Server) NewCode() (string, error) { return s.guard.sessions.newCode() }

type sessionBody struct {
	Code string `json:"code"`
}

// handleSession is POST /api/session {"code": C}: it spends the one-time
// code and answers {"token": T}, the page's bearer token. The guard let
// it through without a token but with its Host, Origin and Sec-Fetch-Site
// checks; a wrong or spent code is 401.
func (s *Server) handleSession(w http.ResponseWriter, r *http.Request) {
	var body sessionBody
	if err := decodeBody(r, &body); err != nil {
		fail(w, err)
		return
	}
	token, ok, err := s.guard.sessions.exchange(body.Code)
	if err != nil {
		fail(w, err)
		return
	}
	if !ok {
		writeError(w, http.StatusUnauthorized, "unauthorized",
			"this sign-in code is wrong or was used already; open a fresh address (sandbox serve prints one, POST /api/codes makes more)")
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Token string `json:"token"`
	}{token})
}

// handleCodes is POST /api/codes (with a token): a fresh one-time code,
// so that a tool holding the token file can open another page.
func (s *Server) handleCodes(w http.ResponseWriter, r *http.Request) {
	code, err := s.NewCode()
	if err != nil {
		fail(w, err)
		return
	}
	writeJSON(w, http.StatusOK, struct {
		Code string `json:"code"`
	}{code})
}
