//go:build windows

package launcher

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// winHelperVar makes the test binary, jailed by the Windows run tests,
// report its environment and ask the proxy for a destination.
const winHelperVar = "SANDBOX_LAUNCHER_WIN_HELPER"

func helperMain() (int, bool) {
	if os.Getenv(winHelperVar) != "env" {
		return 0, false
	}
	path := filepath.SplitList(os.Getenv("PATH"))
	path = append(path, "", "")
	fmt.Printf("path0=%s\npath1=%s\nproxy=%s\njail=%s\n", path[0], path[1], os.Getenv("HTTPS_PROXY"), os.Getenv("SANDBOX_JAIL"))
	fmt.Printf("connect=%s\n", askProxy(os.Getenv("HTTPS_PROXY"), "blocked.example:443"))
	return 5, true
}

// askProxy sends CONNECT target to the proxy and returns its status line.
func askProxy(proxy, target string) string {
	u, err := url.Parse(proxy)
	if err != nil {
		return err.Error()
	}
	c, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err.Error()
	}
	return strings.TrimSpace(line)
}
