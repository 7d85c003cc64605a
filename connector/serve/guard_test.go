package serve

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// routes lists every API route with a harmless body.
var apiRoutes = []struct{ method, path, body string }{
	{"GET", "/api/status", ""},
	{"GET", "/api/folders", ""},
	{"GET", "/api/requests?state=all", ""},
	{"GET", "/api/requests/01abc", ""},
	{"POST", "/api/requests/01abc/approve", "{}"},
	{"POST", "/api/requests/01abc/deny", "{}"},
	{"GET", "/api/requests/01abc/output", ""},
	{"GET", "/api/audit?after=0", ""},
	{"GET", "/api/audit/verify", ""},
	{"GET", "/api/policy", ""},
	{"POST", "/api/policy/accept", `{"sha256":"x"}`},
	{"GET", "/api/events", ""},
	{"POST", "/api/codes", ""},
}

func TestEveryAPIRouteNeedsTheToken(t *testing.T) {
	h := newHarness(t, 1)
	bad := []struct {
		name string
		mod  func(*http.Request)
	}{
		{"no token", noAuth},
		{"wrong bearer", withHeader("Authorization", "Bearer "+strings.Repeat("x", 43))},
		{"token prefix", withHeader("Authorization", "Bearer "+h.token[:20])},
		{"basic scheme", withHeader("Authorization", "Basic "+h.token)},
		{"token in the query", func(r *http.Request) {
			noAuth(r)
			r.URL.RawQuery = "token=" + h.token
		}},
		{"the token as a cookie", func(r *http.Request) {
			noAuth(r)
			r.AddCookie(&http.Cookie{Name: "sandbox_token_7357", Value: h.token})
		}},
		{"the token as a subprotocol off the WebSocket", func(r *http.Request) {
			noAuth(r)
			if r.URL.Path != "/api/events" {
				r.Header.Set("Sec-WebSocket-Protocol", wsProtocol+", "+wsTokenPrefix+h.token)
			}
		}},
		{"a wrong subprotocol token", func(r *http.Request) {
			noAuth(r)
			r.Header.Set("Sec-WebSocket-Protocol", wsProtocol+", "+wsTokenPrefix+strings.Repeat("z", 43))
		}},
	}
	for _, rt := range apiRoutes {
		for _, b := range bad {
			t.Run(rt.method+" "+rt.path+" "+b.name, func(t *testing.T) {
				w := h.do(t, rt.method, rt.path, rt.body, b.mod)
				if w.Code != http.StatusUnauthorized {
					t.Fatalf("status %d, want 401: %s", w.Code, w.Body)
				}
			})
		}
	}
}

// The page signs in with a one-time code: it works once, for a token that
// authorises the API; a spent, wrong or cross-origin code does not.
func TestOneTimeCodeWorksOnce(t *testing.T) {
	h := newHarness(t, 1)
	code, err := h.srv.NewCode()
	if err != nil {
		t.Fatal(err)
	}
	origin := withHeader("Origin", "http://"+testAddr)
	if w := h.do(t, "POST", "/api/session", `{"code":"`+code+`"}`, noAuth, withHeader("Origin", "http://127.0.0.1:3000")); w.Code != 403 {
		t.Fatalf("a foreign origin's exchange: %d", w.Code)
	}
	var got struct{ Token string }
	decode(t, h.do(t, "POST", "/api/session", `{"code":"`+code+`"}`, noAuth, origin), 200, &got)
	if len(got.Token) < minTokenLen || got.Token == h.token || got.Token == code {
		t.Fatalf("page token %q", got.Token)
	}
	bearer := withHeader("Authorization", "Bearer "+got.Token)
	decode(t, h.do(t, "GET", "/api/status", "", bearer), 200, nil)
	for _, body := range []string{`{"code":"` + code + `"}`, `{"code":""}`, `{}`, `{"code":"` + h.token + `"}`} {
		if w := h.do(t, "POST", "/api/session", body, noAuth, origin); w.Code != 401 {
			t.Fatalf("exchange %s: %d, want 401", body, w.Code)
		}
	}
	// A tool holding the token file can make another code.
	var more struct{ Code string }
	decode(t, h.do(t, "POST", "/api/codes", ""), 200, &more)
	decode(t, h.do(t, "POST", "/api/session", `{"code":"`+more.Code+`"}`, noAuth), 200, nil)
}

// No route ever sets a cookie: a cookie of 127.0.0.1 reaches every port
// of the host, so any local server the browser visits would receive it.
func TestNoCookieIsEverSet(t *testing.T) {
	h := newHarness(t, 1)
	req := h.projects[0].submit(t, "true")
	code, _ := h.srv.NewCode()
	paths := []struct{ method, path, body string }{
		{"GET", "/", ""}, {"GET", "/?token=" + h.token, ""}, {"GET", "/?code=" + code, ""},
		{"GET", "/assets/app.js", ""}, {"GET", "/nope", ""},
		{"POST", "/api/session", `{"code":"` + code + `"}`}, {"POST", "/api/session", `{"code":"x"}`},
		{"GET", "/api/requests/" + req.ID, ""}, {"POST", "/api/requests/" + req.ID + "/deny", "{}"},
	}
	paths = append(paths, apiRoutes...)
	for _, rt := range paths {
		for _, auth := range []bool{true, false} {
			w := h.do(t, rt.method, rt.path, rt.body, func(r *http.Request) {
				if !auth {
					noAuth(r)
				}
			})
			if c := w.Header().Values("Set-Cookie"); len(c) != 0 {
				t.Fatalf("%s %s set a cookie: %q", rt.method, rt.path, c)
			}
		}
	}
}

func TestForeignHostIsForbidden(t *testing.T) {
	h := newHarness(t, 1)
	for _, host := range []string{"evil.example:7357", "127.0.0.1:7358", "127.0.0.1", "attacker.localhost:7357", "", "0.0.0.0:7357"} {
		for _, path := range []string{"/", "/assets/app.js", "/api/status"} {
			t.Run(host+path, func(t *testing.T) {
				w := h.do(t, "GET", path, "", withHost(host))
				if w.Code != http.StatusForbidden {
					t.Fatalf("status %d, want 403", w.Code)
				}
			})
		}
	}
	for _, host := range []string{testAddr, "localhost:7357", "LOCALHOST:7357"} {
		decode(t, h.do(t, "GET", "/api/status", "", withHost(host)), 200, nil)
	}
}

func TestForeignOriginIsForbidden(t *testing.T) {
	h := newHarness(t, 1)
	p := h.projects[0]
	req := p.submit(t, "echo hi")
	for _, origin := range []string{"http://evil.example", "null", "http://127.0.0.1:7358", "https://127.0.0.1:7357", "http://localhost.evil:7357"} {
		for _, rt := range []struct{ method, path, body string }{
			{"POST", "/api/requests/" + req.ID + "/approve", "{}"},
			{"POST", "/api/requests/" + req.ID + "/deny", "{}"},
			{"POST", "/api/policy/accept", "{}"},
			{"GET", "/api/events", ""},
			{"GET", "/api/status", ""},
		} {
			t.Run(origin+" "+rt.path, func(t *testing.T) {
				w := h.do(t, rt.method, rt.path, rt.body, withHeader("Origin", origin))
				if w.Code != http.StatusForbidden {
					t.Fatalf("status %d, want 403: %s", w.Code, w.Body)
				}
			})
		}
	}
	w := h.do(t, "POST", "/api/requests/"+req.ID+"/deny", "{}", withHeader("Sec-Fetch-Site", "cross-site"))
	if w.Code != http.StatusForbidden {
		t.Fatalf("cross-site fetch: status %d, want 403", w.Code)
	}
	// Still pending: nothing above decided it. The page's own origin may.
	h.pending(t, 1)
	decode(t, h.do(t, "POST", "/api/requests/"+req.ID+"/deny", "{}", withHeader("Origin", "http://"+testAddr)), 200, nil)
}

func TestLargeBodiesAreRefused(t *testing.T) {
	h := newHarness(t, 1)
	req := h.projects[0].submit(t, "echo hi")
	big := `{"reason":"` + strings.Repeat("x", maxBody) + `"}`
	for _, chunked := range []bool{false, true} {
		for _, path := range []string{"/api/requests/" + req.ID + "/deny", "/api/requests/" + req.ID + "/approve", "/api/policy/accept"} {
			w := h.do(t, "POST", path, big, func(r *http.Request) {
				if chunked {
					r.ContentLength = -1
				}
			})
			if w.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("%s chunked=%v: status %d, want 413: %s", path, chunked, w.Code, w.Body)
			}
		}
	}
	h.pending(t, 1) // nothing was decided
}

func TestSecurityHeaders(t *testing.T) {
	h := newHarness(t, 1)
	for _, path := range []string{"/", "/assets/app.js", "/api/status", "/api/nope"} {
		w := h.do(t, "GET", path, "")
		hd := w.Header()
		checks := map[string]string{
			"Content-Security-Policy": csp, "X-Content-Type-Options": "nosniff",
			"Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY",
		}
		for k, v := range checks {
			if hd.Get(k) != v {
				t.Errorf("%s: %s = %q, want %q", path, k, hd.Get(k), v)
			}
		}
		for k := range hd {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("%s: CORS header %s", path, k)
			}
		}
	}
	if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe") {
		t.Fatalf("CSP allows inline script: %s", csp)
	}
	w := h.do(t, "OPTIONS", "/api/status", "", withHeader("Origin", "http://"+testAddr))
	if w.Code < 400 || w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("preflight answered %d with CORS headers %v", w.Code, w.Header())
	}
}

func TestTokenFileIsPrivate(t *testing.T) {
	h := newHarness(t, 1)
	path, remove, err := SaveToken(h.st, testAddr, h.token)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v %v", path, fi, err)
	}
	remove()
	if _, err := os.Stat(path); err == nil {
		t.Fatal("token file not removed")
	}
	if _, err := New(t.Context(), Config{Folders: []Folder{{}}, Addr: testAddr, Token: "short", State: h.st}); err == nil {
		t.Fatal("a short token was accepted")
	}
}

func TestRemoteGuardAcceptsTheCertificateNamesOverHTTPS(t *testing.T) {
	g, err := newGuard(Config{Addr: "0.0.0.0:8443", ExtraHosts: []string{"dash.example", "192.0.2.7"}, TLS: true, Token: strings.Repeat("t", 43)})
	if err != nil {
		t.Fatal(err)
	}
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {})
	h := g.wrap(ok)
	cases := []struct {
		host, origin string
		want         int
	}{
		{"dash.example:8443", "https://dash.example:8443", 200},
		{"192.0.2.7:8443", "", 200},
		{"dash.example:8443", "http://dash.example:8443", 403},
		{"localhost:8443", "", 403},
		{"evil.example:8443", "", 403},
	}
	for _, tc := range cases {
		r := httptest.NewRequest("POST", "https://"+tc.host+"/api/requests/x/deny", nil)
		r.Host = tc.host
		r.Header.Set("Authorization", "Bearer "+g.token)
		if tc.origin != "" {
			r.Header.Set("Origin", tc.origin)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.host, tc.origin, w.Code, tc.want)
		}
	}
}
