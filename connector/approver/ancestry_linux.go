//go:build linux

package approver

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// maxAncestors bounds the walk (a chain is a few dozen at most).
const maxAncestors = 64

// Ancestry returns pid's ancestors, its parent first, read from /proc:
// the parent from /proc/PID/stat (after the last ')', since the command
// name may hold spaces and parentheses), the short name, executable,
// command line and environment of each. What cannot be read stays empty.
func Ancestry(pid int) []Process {
	var out []Process
	for i := 0; i < maxAncestors; i++ {
		ppid := parentOf(pid)
		if ppid <= 0 {
			break
		}
		out = append(out, readProcess(ppid))
		if ppid == 1 {
			break
		}
		pid = ppid
	}
	return out
}

func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func readProcess(pid int) Process {
	dir := "/proc/" + strconv.Itoa(pid) + "/"
	p := Process{PID: pid}
	if b, err := os.ReadFile(dir + "comm"); err == nil {
		p.Comm = strings.TrimSuffix(string(b), "\n")
	}
	p.Exe, _ = os.Readlink(dir + "exe")
	p.Exe = strings.TrimSuffix(p.Exe, " (deleted)")
	p.Args = nulList(dir + "cmdline")
	p.Env = nulList(dir + "environ")
	return p
}

func nulList(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\x00"), "\x00")
}
