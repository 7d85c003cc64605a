package launcher

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
)

// tunnel serves one CONNECT: decide, dial, answer 200, then copy both
// ways until both sides are done.
func (p *Proxy) tunnel(ctx context.Context, c net.Conn, br *bufio.Reader, req *http.Request) {
	t, ok := p.decide(ctx, c, req.RequestURI, 443)
	if !ok {
		return
	}
	up, err := p.dialGuarded(ctx, "tcp", t.Addr())
	if err != nil {
		p.log.Info("proxy dial failed", "target", t.Addr(), "err", err)
		writeStatus(c, http.StatusBadGateway, "sandbox: "+t.Addr()+": "+err.Error())
		return
	}
	defer up.Close()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	if n := br.Buffered(); n > 0 { // bytes the client sent after the request
		b, _ := br.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	splice(c, up)
}

// splice copies both ways (io.Copy uses splice(2) between TCP sockets),
// half-closing each direction as it ends.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); copyHalf(b, a) }()
	go func() { defer wg.Done(); copyHalf(a, b) }()
	wg.Wait()
}

func copyHalf(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		_ = dst.Close()
	}
}
