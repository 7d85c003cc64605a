package launcher

import (
	"context"
	"net"
	"net/http"
	"strings"
)

// hopHeaders are connection-scoped and never forwarded.
var hopHeaders = []string{
	"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade",
}

// forward serves one plain-HTTP proxy request (absolute http:// URI); it
// reports whether the client connection may carry another request.
func (p *Proxy) forward(ctx context.Context, c net.Conn, req *http.Request) bool {
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		writeStatus(c, http.StatusBadRequest, "sandbox proxy: only absolute http:// URIs and CONNECT are served")
		return false
	}
	t, ok := p.decide(ctx, c, req.URL.Host, 80)
	if !ok {
		return false
	}
	out := req.Clone(ctx)
	out.RequestURI = ""
	out.URL.Host = t.Addr() // dial exactly what was decided
	if out.Host == "" {
		out.Host = req.URL.Host
	}
	stripHop(out.Header)
	resp, err := p.client.RoundTrip(out)
	if err != nil {
		writeStatus(c, http.StatusBadGateway, "sandbox: "+t.Addr()+": "+err.Error())
		return false
	}
	defer resp.Body.Close()
	stripHop(resp.Header)
	keep := !req.Close && !resp.Close
	if !keep {
		resp.Header.Set("Connection", "close")
	}
	if err := resp.Write(c); err != nil {
		return false
	}
	return keep
}

func stripHop(h http.Header) {
	for _, f := range h.Values("Connection") {
		for _, name := range strings.Split(f, ",") {
			h.Del(strings.TrimSpace(name))
		}
	}
	for _, name := range hopHeaders {
		h.Del(name)
	}
}
