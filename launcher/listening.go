package launcher

import (
	"os"
	"strconv"
	"strings"
)

// hostListening reports whether a TCP socket of this network namespace
// listens on port, from the kernel's tables (/proc/net/tcp and tcp6),
// without connecting to it. Where the tables cannot be read it answers
// true: the caller then does what it did before it could ask.
func hostListening(port int) bool {
	read := false
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		read = true
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) < 4 || f[3] != "0A" { // TCP_LISTEN
				continue
			}
			i := strings.LastIndexByte(f[1], ':')
			if p, err := strconv.ParseUint(f[1][i+1:], 16, 16); err == nil && int(p) == port {
				return true
			}
		}
	}
	return !read
}
