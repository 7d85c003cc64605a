//go:build linux

package jail_linux

import (
	"bufio"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// findTmpSockets fills in the sockets the init hides in the shared
// scratch trees. It runs in the supervisor, before the init configures
// its mounts, and asks the kernel's socket table (boundSockets) instead
// of walking the trees: a cluttered /tmp took 8.5 ms to walk on every
// jailed command of connector mode. Only a socket bound in this network
// namespace is in the table (a program in another one that shares the
// host's /tmp is not: docs/THREAT-MODEL.md). The table gives each
// socket's path as it was bound and the identity of its file; when any
// socket whose file may lie in the trees cannot be placed for certain (a
// relative or stale path, its file renamed or moved away, a second link
// to it), the init also walks the trees as before (TmpScan).
func findTmpSockets(c *initConfig) {
	roots := c.SharedTmpRoots()
	if len(roots) == 0 {
		return
	}
	socks, ok := tableSockets(roots)
	c.TmpSockets, c.TmpScan = socks, !ok
	c.TmpSocketDirs = nil
	for _, r := range roots {
		c.TmpSocketDirs = append(c.TmpSocketDirs, tmpDirs.list(r)...)
	}
}

// tmpDirs keeps, per shared scratch tree, its well-known socket dirs as
// last listed, with the tree's identity and change times then: a
// cluttered /tmp (7,800 entries on a CI machine) took 4 ms to list at
// every jailed command of the hook server. An entry added, removed or
// renamed in the tree changes its mtime and ctime, and a process without
// the tree's ownership cannot set them back (ctime not at all), so an
// unchanged tree has the same dirs. File times are coarse (a clock tick):
// a tree changed in the last racyTree is listed again every time, as
// git treats an index entry as racy.
var tmpDirs = &tmpDirCache{m: map[string]tmpDirList{}}

const racyTree = 100 * time.Millisecond

type tmpDirCache struct {
	mu sync.Mutex
	m  map[string]tmpDirList // guarded by mu
}

type tmpDirList struct {
	dev, ino     uint64
	mtime, ctime unix.Timespec
	dirs         []string
}

func (c *tmpDirCache) list(root string) []string {
	var st unix.Stat_t
	if unix.Stat(root, &st) != nil {
		return nil
	}
	c.mu.Lock()
	l, ok := c.m[root]
	c.mu.Unlock()
	if ok && l.dev == st.Dev && l.ino == st.Ino && l.mtime == st.Mtim && l.ctime == st.Ctim {
		return l.dirs
	}
	l = tmpDirList{dev: st.Dev, ino: st.Ino, mtime: st.Mtim, ctime: st.Ctim}
	for _, name := range jailinit.TmpSocketDirs(root) {
		l.dirs = append(l.dirs, filepath.Join(root, name))
	}
	if time.Since(time.Unix(st.Ctim.Unix())) > racyTree && time.Since(time.Unix(st.Mtim.Unix())) > racyTree {
		c.mu.Lock()
		c.m[root] = l
		c.mu.Unlock()
	}
	return l.dirs
}

// tableSockets returns the sockets placed in the roots, and whether
// every socket that may lie in them was placed.
func tableSockets(roots []string) ([]string, bool) {
	devs, ok := treeDevs(roots)
	if !ok {
		return nil, false
	}
	table, err := boundSockets()
	if err != nil {
		return nil, false
	}
	var out []string
	placed := true
	for _, s := range table {
		if !devs[s.dev] {
			continue // its file is on no file system the trees hold
		}
		real, ok := placeSocket(s)
		placed = placed && ok
		if ok && jailinit.InAny(real, roots) {
			out = append(out, real)
		}
	}
	return out, placed
}

// placeSocket returns where the socket's file is: its bound path, links
// resolved, if that path still names the socket's file and it has no
// other name.
func placeSocket(s boundSocket) (string, bool) {
	if !filepath.IsAbs(s.path) {
		return "", false
	}
	real, err := filepath.EvalSymlinks(s.path)
	if err != nil {
		return "", false
	}
	var st unix.Stat_t
	if unix.Lstat(real, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK || !s.sameFile(&st) || st.Nlink != 1 {
		return "", false
	}
	return real, true
}

// treeDevs lists, in the kernel's dev_t encoding, the file systems a
// socket's file in the roots can be on: each root's own (as stat says it)
// and that of the mount holding it (as mountinfo says it: the table's
// device, where stat differs, as on a btrfs subvolume), and those of the
// mounts below the roots.
func treeDevs(roots []string) (map[uint32]bool, bool) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	devs := map[uint32]bool{}
	for _, r := range roots {
		var st unix.Stat_t
		if unix.Stat(r, &st) != nil {
			return nil, false
		}
		devs[kernelDev(unix.Major(st.Dev), unix.Minor(st.Dev))] = true
	}
	return devs, mountDevs(f, roots, devs)
}

// mountDevs adds to devs the devices of the mounts in mountinfo that
// hold a root or lie below one.
func mountDevs(r io.Reader, roots []string, devs map[uint32]bool) bool {
	holder := make([]string, len(roots)) // the longest mount point holding each root so far
	holderDev := make([]uint32, len(roots))
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		// ID PARENT MAJOR:MINOR ROOT MOUNTPOINT ...
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			return false
		}
		maj, min, ok := strings.Cut(fields[2], ":")
		a, aerr := strconv.ParseUint(maj, 10, 32)
		b, berr := strconv.ParseUint(min, 10, 32)
		if !ok || aerr != nil || berr != nil {
			return false
		}
		dev, mp := kernelDev(uint32(a), uint32(b)), unescapeMount(fields[4])
		if jailinit.InAny(mp, roots) {
			devs[dev] = true
		}
		for i, root := range roots {
			if (root == mp || jailinit.Within(root, mp)) && len(mp) >= len(holder[i]) {
				holder[i], holderDev[i] = mp, dev // a later mount on the same point hides the earlier
			}
		}
	}
	for i := range roots {
		if holder[i] == "" {
			return false
		}
		devs[holderDev[i]] = true
	}
	return sc.Err() == nil
}

func kernelDev(major, minor uint32) uint32 { return major<<20 | minor }

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
