//go:build linux

package jail_linux

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// v1Hier is one mounted v1 hierarchy and the supervisor's cgroup in it.
type v1Hier struct {
	mount string // e.g. /sys/fs/cgroup/memory
	dir   string // the supervisor's cgroup directory in it
}

// cgroupFacts say where the jail's cgroup goes.
type cgroupFacts struct {
	mode        string            // "v1", "v2", "hybrid", "" (none)
	v1          map[string]v1Hier // controller -> hierarchy
	v2Mount     string            // mount point of the unified hierarchy
	v2Own       string            // the supervisor's v2 cgroup, relative to v2Mount
	useV1       bool              // limits go to v1 (the controllers are there)
	v1OK        bool              // the v1 controllers are writable
	v2Base      string            // v2: parent group of the jails ("/sandbox" as root); "" when unusable
	v2Delegated bool              // v2Base is the user's own delegated cgroup
	v2Ctrl      []string          // controllers available to the jails on v2
	usable      bool              // a jail cgroup can be created
	why         string            // why not, or what is missing
}

func probeCgroup(euid int) cgroupFacts {
	c := cgroupFacts{v1: map[string]v1Hier{}}
	own := ownCgroups()
	readMounts(&c, own)
	return placeCgroup(c, own, euid)
}

// placeCgroup classifies the hierarchies and picks where the jail goes.
func placeCgroup(c cgroupFacts, own map[string]string, euid int) cgroupFacts {
	switch {
	case c.v2Mount == "/sys/fs/cgroup":
		c.mode = "v2"
	case len(c.v1) > 0 && c.v2Mount != "":
		c.mode = "hybrid"
	case len(c.v1) > 0:
		c.mode = "v1"
	}
	c.v2Own = own[""]
	var v2Why string
	if c.v2Mount != "" {
		var ok bool
		if ok, v2Why = v2Place(&c, euid); !ok {
			c.v2Base = ""
		}
	}
	if _, mem := c.v1["memory"]; mem {
		// hybrid: limits on v1; the v2 half (even without controllers)
		// still clones the jail in for free and kills it whole
		c.useV1 = true
		c.v1OK, c.why = v1Usable(c.v1)
		c.usable = c.v1OK
		return c
	}
	c.usable, c.why = c.v2Base != "", v2Why
	if c.v2Mount == "" {
		c.why = "no cgroup hierarchy is mounted"
	}
	return c
}

// ownCgroups parses /proc/self/cgroup: controller -> path ("" for v2).
func ownCgroups() map[string]string {
	f, err := os.Open("/proc/self/cgroup")
	if err != nil {
		return map[string]string{}
	}
	defer f.Close()
	return parseProcCgroup(f)
}

func parseProcCgroup(r io.Reader) map[string]string {
	own := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			own[""] = parts[2]
		}
		for _, ctrl := range strings.Split(parts[1], ",") {
			own[ctrl] = parts[2]
		}
	}
	return own
}

// readMounts finds the cgroup mounts in /proc/self/mountinfo.
func readMounts(c *cgroupFacts, own map[string]string) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return
	}
	defer f.Close()
	parseMountinfo(f, c, own)
}

func parseMountinfo(r io.Reader, c *cgroupFacts, own map[string]string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		root, mnt := fields[3], fields[4]
		switch tail[0] {
		case "cgroup2":
			c.v2Mount = mnt
		case "cgroup":
			addV1(c, own, root, mnt, tail[2])
		}
	}
}

func addV1(c *cgroupFacts, own map[string]string, root, mnt, opts string) {
	for _, o := range strings.Split(opts, ",") {
		switch o {
		case "memory", "pids", "cpu", "freezer":
			rel, err := filepath.Rel(root, own[o])
			if err != nil || strings.HasPrefix(rel, "..") {
				rel = "."
			}
			c.v1[o] = v1Hier{mount: mnt, dir: filepath.Join(mnt, rel)}
		}
	}
}

func v1Usable(v1 map[string]v1Hier) (bool, string) {
	for _, ctrl := range []string{"memory", "pids"} {
		h, ok := v1[ctrl]
		if !ok {
			return false, "cgroup v1 controller " + ctrl + " is not mounted"
		}
		if unix.Access(h.dir, unix.W_OK) != nil {
			return false, "no write access to " + h.dir + " (cgroup v1 is not delegated to this user)"
		}
	}
	return true, ""
}

// v2Place picks where jail cgroups go: root uses <mount>/sandbox; a user
// needs the cgroup it runs in to be delegated to it.
func v2Place(c *cgroupFacts, euid int) (bool, string) {
	if euid == 0 {
		c.v2Base = "/sandbox"
		c.v2Ctrl = readControllers(filepath.Join(c.v2Mount, "cgroup.controllers"))
		return true, ""
	}
	dir := filepath.Join(c.v2Mount, c.v2Own)
	if unix.Access(dir, unix.W_OK) != nil || unix.Access(filepath.Join(dir, "cgroup.procs"), unix.W_OK) != nil {
		return false, "the cgroup " + c.v2Own + " is not delegated to this user " +
			"(run under `systemd-run --user --scope -p Delegate=yes`)"
	}
	c.v2Base, c.v2Delegated = c.v2Own, true
	c.v2Ctrl = readControllers(filepath.Join(dir, "cgroup.controllers"))
	return true, ""
}

func readControllers(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return strings.Fields(string(b))
}
