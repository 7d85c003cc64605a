package hookd

import (
	"hash/fnv"
	"strconv"
)

// Port is the loopback port of the hook server of project root for user
// uid: fixed, so that the agent's settings can name it, and below the
// kernel's range of ephemeral ports (32768 and up), where a client's
// connection could hold it.
func Port(root string, uid int) int {
	h := fnv.New32a()
	h.Write([]byte(strconv.Itoa(uid) + "\x00" + root))
	return 10000 + int(h.Sum32()%20000)
}

// HealthLine is what the server's /health answers: the protocol and the
// project, so that a client knows the port is this project's server.
func HealthLine(root string) string { return "sandbox hookd 1\n" + root + "\n" }
