//go:build linux

package jailinit

import (
	"errors"
	"fmt"
	"os"
	"path"
	"slices"

	"golang.org/x/sys/unix"
)

// setupMounts runs in the init's fresh mount namespace: nothing it does
// propagates back to the host. First the per-run substitutes (their
// copies may lie in a scratch tree), then the private scratch trees (which
// carry a project under /tmp along, with the substitutes inside it), then
// the holes (their parent rw, its other entries read-only), then the
// pinned read-only paths (recursive binds, so they keep the holes), then
// tmpfs over the hidden trees and the socket dirs, then a /proc of the
// jail's own pid namespace.
func setupMounts(cfg *Config) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("mount propagation: %w", err)
	}
	if err := substitute(cfg.Substs); err != nil {
		return err
	}
	if err := privateTmp(cfg); err != nil {
		return err
	}
	if err := mountHoles(cfg); err != nil {
		return err
	}
	if err := pinReadOnly(cfg); err != nil {
		return err
	}
	var hd hider
	for _, h := range cfg.Hidden {
		if err := hd.hide(h); err != nil {
			return err
		}
	}
	if err := hideSockets(cfg, &hd); err != nil {
		return err
	}
	if cfg.PidNS {
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return fmt.Errorf("mount /proc: %w", err)
		}
	}
	return nil
}

// mountHoles makes each holes' parent a writable mount of its own (so a
// rename between two holes stays on one mount) and binds its other
// entries read-only over themselves.
func mountHoles(cfg *Config) error {
	parents := map[string][]string{}
	for _, h := range cfg.Holes {
		if isDir(h) {
			parents[path.Dir(h)] = append(parents[path.Dir(h)], h)
		}
	}
	for parent, holes := range parents {
		if err := unix.Mount(parent, parent, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("bind %s: %w", parent, err)
		}
		entries, err := os.ReadDir(parent)
		if err != nil {
			return fmt.Errorf("read %s: %w", parent, err)
		}
		for _, e := range entries {
			p := path.Join(parent, e.Name())
			if slices.Contains(holes, p) || e.Type()&os.ModeSymlink != 0 {
				continue
			}
			if err := bindReadOnly(p, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// InAny reports whether p is one of trees or lies below one.
func InAny(p string, trees []string) bool {
	for _, t := range trees {
		if p == t || Within(p, t) {
			return true
		}
	}
	return false
}

// bindReadOnly binds p over itself and makes the new mount read-only;
// rec also carries the mounts below p along (the holes).
func bindReadOnly(p string, rec bool) error {
	flags := uintptr(unix.MS_BIND)
	if rec {
		flags |= unix.MS_REC
	}
	if err := unix.Mount(p, p, "", flags, ""); err != nil {
		return fmt.Errorf("bind %s: %w", p, err)
	}
	return remountReadOnly(p)
}

// remountReadOnly sets MOUNT_ATTR_RDONLY on the top mount at p (not
// recursively: the holes below stay writable). Kernels before 5.12 lack
// mount_setattr; the classic remount keeps the flags it must not drop.
func remountReadOnly(p string) error {
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	err := unix.MountSetattr(unix.AT_FDCWD, p, 0, &attr)
	if errors.Is(err, unix.ENOSYS) {
		var st unix.Statfs_t
		if err = unix.Statfs(p, &st); err == nil {
			keep := uintptr(st.Flags) & (unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
			err = unix.Mount("", p, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|keep, "")
		}
	}
	if err != nil {
		return fmt.Errorf("read-only %s: %w", p, err)
	}
	return nil
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}
