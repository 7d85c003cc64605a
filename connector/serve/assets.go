package serve

import (
	"embed"
	"io/fs"
	"net/http"
)

// web holds the page: plain HTML, CSS and JavaScript, no build step.
//
//go:embed web
var web embed.FS

func (s *Server) assets() http.Handler {
	sub, err := fs.Sub(web, "web")
	if err != nil {
		s.log.Error("bug: embedded assets missing", "err", err)
		return http.NotFoundHandler()
	}
	return http.StripPrefix("/assets/", http.FileServerFS(sub))
}

// handleIndex serves the page. It sets no cookie: the page signs in with
// the one-time code in its address's fragment (see sessions).
func (s *Server) handleIndex(w http.ResponseWriter, r *http.Request) {
	servePage(w, "web/index.html")
}

// servePage serves one of the embedded pages, never cached.
func servePage(w http.ResponseWriter, name string) {
	page, err := web.ReadFile(name)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(page)
}
