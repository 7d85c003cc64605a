package serve

import (
	"net"
	"net/http"
	"strings"
)

// maxBody caps every request body (413 beyond).
const maxBody = 64 << 10

// csp forbids inline script and every remote source.
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// wsProtocol is the WebSocket subprotocol the page speaks; it offers its
// token as a second one, wsTokenPrefix+TOKEN (a browser cannot set an
// Authorization header on a WebSocket, and a cookie is what we refuse).
const (
	wsProtocol    = "sandbox.v1"
	wsTokenPrefix = "sandbox.token."
)

// guard holds what every request is checked against: the Host header
// (DNS rebinding), the Origin (cross-site requests) and the credentials:
// the token of the token file, or a page token from a one-time code.
type guard struct {
	hosts    map[string]bool // accepted Host values, lower case
	origins  map[string]bool // accepted Origin values
	token    string
	sessions *sessions
}

func newGuard(cfg Config) (*guard, error) {
	host, port, err := net.SplitHostPort(cfg.Addr)
	if err != nil {
		return nil, err
	}
	g := &guard{hosts: map[string]bool{}, origins: map[string]bool{}, token: cfg.Token, sessions: &sessions{}}
	names := append([]string{host}, cfg.ExtraHosts...)
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		names = append(names, "localhost")
	}
	scheme := "http://"
	if cfg.TLS {
		scheme = "https://"
	}
	for _, n := range names {
		hp := strings.ToLower(net.JoinHostPort(strings.Trim(n, "[]"), port))
		g.hosts[hp] = true
		g.origins[scheme+hp] = true
	}
	return g, nil
}

// wrap applies the checks: security headers on every response; 403 for
// a foreign Host; 413 for a large body; on /api/, 403 for a foreign
// Origin or a cross-site fetch and 401 without the token.
func (g *guard) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		switch {
		case !g.hosts[strings.ToLower(r.Host)]:
			writeError(w, http.StatusForbidden, "forbidden", "this Host is not the address sandbox serve is bound to")
			return
		case r.ContentLength > maxBody:
			writeError(w, http.StatusRequestEntityTooLarge, "too_large", "request body too large")
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		if strings.HasPrefix(r.URL.Path, "/api/") && !g.api(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// api checks an API call's origin and token. POST /api/session, which
// trades a one-time code for a token, needs no token.
func (g *guard) api(w http.ResponseWriter, r *http.Request) bool {
	w.Header().Set("Cache-Control", "no-store")
	if o := r.Header.Get("Origin"); o != "" && !g.origins[strings.ToLower(o)] {
		writeError(w, http.StatusForbidden, "forbidden", "cross-origin requests are refused")
		return false
	}
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		writeError(w, http.StatusForbidden, "forbidden", "cross-site requests are refused")
		return false
	}
	if r.URL.Path == "/api/session" {
		return true
	}
	if !g.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="sandbox"`)
		writeError(w, http.StatusUnauthorized, "unauthorized", "a valid token is required (open the address sandbox serve printed)")
		return false
	}
	return true
}

// authorized accepts "Authorization: Bearer TOKEN" and, on the WebSocket
// only, the token offered as the subprotocol wsTokenPrefix+TOKEN. TOKEN is
// the token file's or a live page token. Cookies are never looked at.
func (g *guard) authorized(r *http.Request) bool {
	if a := r.Header.Get("Authorization"); a != "" {
		t, ok := strings.CutPrefix(a, "Bearer ")
		return ok && g.accepts(t)
	}
	if r.URL.Path != "/api/events" {
		return false
	}
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if t, ok := strings.CutPrefix(strings.TrimSpace(p), wsTokenPrefix); ok {
				return g.accepts(t)
			}
		}
	}
	return false
}

func (g *guard) accepts(t string) bool {
	return tokenEqual(t, g.token) || g.sessions.valid(t)
}
