package launcher

import (
	"net"
	"runtime"
	"testing"
)

func TestHostListening(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's tables are Linux's")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if !hostListening(port) {
		t.Errorf("port %d listens, yet not seen", port)
	}
	ln.Close()
	if hostListening(port) {
		t.Errorf("port %d closed, yet seen listening", port)
	}
	if got := grantForwards([]int{port, port}, 1); len(got) != 0 {
		t.Errorf("a port nothing listens on is forwarded: %v", got)
	}
}
