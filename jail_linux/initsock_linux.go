//go:build linux

package jail_linux

import (
	"io/fs"
	"path/filepath"
	"strings"
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

// hideSockets hides the socket dirs and every socket found under /run
// (bound over with /dev/null, read-only: connect then fails). Sockets
// inside the writable trees are the jail's own and stay.
func hideSockets(cfg *initConfig, hd *hider) error {
	dirs := append([]string{}, socketDirs...)
	if home := envValue(cfg.Env, "HOME"); filepath.IsAbs(home) {
		for _, d := range homeSocketDirs {
			dirs = append(dirs, filepath.Join(home, d))
		}
	}
	for _, d := range dirs {
		if !inAny(d, cfg.Writable) {
			if err := hd.hide(d); err != nil {
				return err
			}
		}
	}
	for _, s := range findSockets("/run") {
		if !inAny(s, cfg.Writable) {
			if err := hd.hide(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// findSockets lists the sockets below root, within the scan's bounds;
// unreadable dirs are skipped (the jail cannot enter them either).
func findSockets(root string) []string {
	var out []string
	n := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if n++; n > socketScanEntries {
			return filepath.SkipAll
		}
		if err != nil {
			return nil
		}
		if d.IsDir() && strings.Count(p[len(root):], "/") >= socketScanDepth {
			return filepath.SkipDir
		}
		if d.Type()&fs.ModeSocket != 0 {
			out = append(out, p)
		}
		return nil
	})
	return out
}
