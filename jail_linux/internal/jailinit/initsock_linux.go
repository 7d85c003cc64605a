//go:build linux

package jailinit

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// socketDirs are hidden whole, besides the private scratch trees: every
// user's runtime dir (session bus, Wayland, PulseAudio, gpg-agent, editor
// and IDE IPC sockets, rootless podman), screen's socket dir, and the
// container desktops' sockets under the home dir. A pathname socket leads
// to whatever program listens on it, outside the jail, and Landlock before
// ABI 9 cannot stop a connect(2); a mount over it can.
var socketDirs = []string{"/run/user", "/run/screen", "/run/tmux", "/var/run/screen"}

var homeSocketDirs = []string{".docker/run", ".docker/desktop", ".colima", ".lima", ".rd", ".gnupg"}

// socketScan bounds the search for other sockets under /run: system
// daemons' sockets (databases, snapd, lxd) sit a few levels down, and /run
// is a small tmpfs (a few hundred entries on a desktop).
const (
	socketScanDepth   = 4
	socketScanEntries = 8192
)

// tmpSocketDirs are hidden whole in a shared /tmp or /var/tmp (patterns
// of names directly inside it), whatever the scan finds in them now:
// tmux's and screen's socket dirs, X11's and its friends', ssh-agent's,
// emacs' and neovim's servers, PulseAudio without a runtime dir, and
// other services' private /tmp (systemd). One that is or holds a
// writable tree (a project named ssh-tools under /tmp) is left alone.
var tmpSocketDirs = []string{"tmux-*", "screens", "uscreens", ".X11-unix", ".ICE-unix", ".XIM-unix", ".font-unix",
	".Test-unix", "ssh-*", "emacs[0-9]*", "nvim*", "pulse-*", "systemd-private-*"}

// tmpScan bounds the walk that looks for sockets in a shared /tmp when
// the kernel's socket table cannot tell where they are (tableSockets):
// three levels catch the usual places (/tmp/x.sock, /tmp/app/x.sock,
// /tmp/app-UID/run/x.sock), and the walk goes shallowest first, so that a
// big build tree deep down uses up the budget last. 16384 entries take a
// few milliseconds.
const (
	tmpScanDepth   = 3
	tmpScanEntries = 16384
)

// hideSockets hides the socket dirs and every socket found under /run
// (bound over with /dev/null, read-only: connect then fails). Sockets
// inside the writable trees are the jail's own and stay, but for those in
// a shared /tmp or /var/tmp: they are the host's, hidden all as found at
// the start (hideTmpSockets).
func hideSockets(cfg *Config, hd *hider) error {
	dirs := append([]string{}, socketDirs...)
	if home := envValue(cfg.Env, "HOME"); path.IsAbs(home) {
		for _, d := range homeSocketDirs {
			dirs = append(dirs, path.Join(home, d))
		}
	}
	for _, d := range dirs {
		if !InAny(d, cfg.Writable) {
			if err := hd.hide(d); err != nil {
				return err
			}
		}
	}
	for _, s := range findSockets("/run", socketScanDepth, socketScanEntries) {
		if !InAny(s, cfg.Writable) {
			if err := hd.hide(s); err != nil {
				return err
			}
		}
	}
	for _, root := range cfg.SharedTmpRoots() {
		if err := hideTmpSockets(root, cfg, hd); err != nil {
			return err
		}
	}
	return nil
}

// hideTmpSockets hides, in a scratch tree shared with the host, the
// well-known socket dirs whole (as the supervisor listed them) and every
// socket the supervisor found in the kernel's table (and, when the table
// could not place them all, every socket a walk finds).
func hideTmpSockets(root string, cfg *Config, hd *hider) error {
	for _, d := range cfg.TmpSocketDirs {
		if path.Dir(d) == root && !slices.Contains(cfg.Writable, d) && !anyWithin(cfg.Writable, d) {
			if err := hd.hide(d); err != nil {
				return err
			}
		}
	}
	socks := cfg.TmpSockets
	if cfg.TmpScan {
		socks = append(socks, findSockets(root, tmpScanDepth, tmpScanEntries)...)
	}
	for _, s := range socks {
		if Within(s, root) {
			if err := hd.hide(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// namePatterns are patterns of names with their literal prefixes: only
// a name that starts with one is matched in full (a cluttered /tmp held
// 890 entries, 13 patterns each: 1.5-1.9 ms of filepath.Match).
type namePatterns struct{ pats, lits []string }

func newNamePatterns(pats []string) namePatterns {
	np := namePatterns{pats: pats}
	for _, p := range pats {
		if i := strings.IndexAny(p, `*?[\\`); i >= 0 {
			p = p[:i]
		}
		np.lits = append(np.lits, p)
	}
	return np
}

func (np namePatterns) match(name string) bool {
	for i, p := range np.pats {
		if !strings.HasPrefix(name, np.lits[i]) {
			continue
		}
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// matchBytes is match on a name as the directory's raw entry holds it;
// only a name with a pattern's literal prefix becomes a string.
func (np namePatterns) matchBytes(name []byte) bool {
	for i, lit := range np.lits {
		if len(name) >= len(lit) && string(name[:len(lit)]) == lit {
			if ok, _ := path.Match(np.pats[i], string(name)); ok {
				return true
			}
		}
	}
	return false
}

// direntName is where a linux_dirent64's name starts (after d_ino,
// d_off, d_reclen and d_type).
const direntName = int(unsafe.Offsetof(unix.Dirent{}.Name))

// TmpSocketDirs lists the well-known socket dirs directly in a shared
// scratch tree (tmpSocketDirs' patterns), by name.
func TmpSocketDirs(root string) []string {
	return matchingDirs(root, tmpSocketNames)
}

var tmpSocketNames = newNamePatterns(tmpSocketDirs)

// matchingDirs lists the names of the directories directly in root
// (links not followed) that match np, from the directory's raw entries:
// a shared /tmp holds a thousand entries and more, and os.File.ReadDir
// allocated an entry and a name for each of them at every jailed command
// (a quarter of the init's own work here) to find a few.
func matchingDirs(root string, np namePatterns) []string {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(fd)
	var out []string
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n <= 0 {
			return out
		}
		for b := buf[:n]; len(b) > direntName; {
			d := (*unix.Dirent)(unsafe.Pointer(&b[0]))
			reclen := int(d.Reclen)
			if reclen <= direntName || reclen > len(b) {
				return out // cannot happen: the kernel wrote whole records
			}
			name := b[direntName:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			b = b[reclen:]
			if (d.Type == unix.DT_DIR || d.Type == unix.DT_UNKNOWN) && np.matchBytes(name) &&
				(d.Type == unix.DT_DIR || isDirNoFollow(path.Join(root, string(name)))) {
				out = append(out, string(name))
			}
		}
	}
}

func isDirNoFollow(p string) bool {
	var st unix.Stat_t
	return unix.Lstat(p, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR
}

// findSockets lists the sockets below root, breadth first, down to depth
// levels (root's entries are level 1) and at most entries entries;
// unreadable dirs are skipped (the jail cannot enter them either), and
// links are not followed.
func findSockets(root string, depth, entries int) []string {
	var out []string
	type dir struct {
		path  string
		level int
	}
	queue := []dir{{root, 0}}
	for len(queue) > 0 && entries > 0 {
		d := queue[0]
		queue = queue[1:]
		list := readDirN(d.path, entries)
		entries -= len(list)
		for _, e := range list {
			p := path.Join(d.path, e.Name())
			switch {
			case e.Type()&fs.ModeSocket != 0:
				out = append(out, p)
			case e.IsDir() && d.level+1 < depth:
				queue = append(queue, dir{p, d.level + 1})
			}
		}
	}
	return out
}

// readDirN reads at most n entries of dir, unsorted; nil when it cannot.
func readDirN(dir string, n int) []fs.DirEntry {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	list, _ := f.ReadDir(n)
	return list
}
