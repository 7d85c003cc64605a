//go:build linux

package jailinit

import (
	"fmt"
	"os"
	"path"
	"slices"

	"golang.org/x/sys/unix"
)

// tmpRoots are the scratch trees every user shares. Each jail gets a
// fresh tmpfs over each: pathname sockets there (tmux's
// /tmp/tmux-UID/default, X11's /tmp/.X11-unix, screen, editors,
// databases) lead to programs outside the jail, and Landlock before ABI 9
// cannot stop a connect(2) to them.
var tmpRoots = []string{"/tmp", "/var/tmp", "/dev/shm"}

// sharedRoots are the scratch trees a shared-tmp jail keeps (connector
// mode: the agent's own unjailed tools and its earlier commands leave
// files there for the next command). /dev/shm is not among them: no tool
// hands files over through it.
var sharedRoots = []string{"/tmp", "/var/tmp"}

// SharedTmpRoots lists the real paths of the scratch trees this jail shares
// with the host: none unless cfg.SharedTmp.
func (c *Config) SharedTmpRoots() []string {
	if !c.SharedTmp {
		return nil
	}
	var out []string
	for _, r := range sharedRoots {
		if real, err := evalSymlinks(r); err == nil && isDir(real) && !slices.Contains(out, real) {
			out = append(out, real)
		}
	}
	return out
}

// tmpOptions: mode 1777 as the originals have it, and half the RAM, the
// kernel's default, named so that it is a decision: the pages count
// against the jail's memory cgroup like any other, so --memory bounds them.
const tmpOptions = "mode=1777,size=50%"

// privateTmp mounts the fresh tmpfs over each scratch tree. What the
// jail must keep seeing there is moved into the new tmpfs at the same
// path: the writable trees inside it (a project under /tmp), read-only
// the command's directory and the jail's own binary (the shims link to
// it). $TMPDIR, when it lies inside, is created empty in the new tmpfs.
func privateTmp(cfg *Config) error {
	seen := map[string]bool{}
	for _, r := range cfg.SharedTmpRoots() {
		seen[r] = true // the host's own, its sockets hidden (hideSockets)
	}
	for _, r := range tmpRoots {
		real, err := evalSymlinks(r) // /var/tmp -> /tmp: links of the system, not the jail's
		if err != nil || seen[real] || !isDir(real) {
			continue
		}
		seen[real] = true
		if err := privatize(real, cfg); err != nil {
			return fmt.Errorf("private %s: %w", real, err)
		}
	}
	return nil
}

// carried is a tree moved from the shared scratch dir into the private one.
type carried struct {
	path string
	fd   int // a detached copy of the mount tree (open_tree)
	dir  bool
	ro   bool
}

func privatize(root string, cfg *Config) (err error) {
	if InAny(root, cfg.Writable) && anyWithin(cfg.Holes, root) && !anyWithin(cfg.Writable, root) {
		return nil // the project itself is the scratch dir: nothing to make private
	}
	keep, err := carry(root, cfg)
	defer func() {
		for _, k := range keep {
			_ = unix.Close(k.fd)
		}
	}()
	if err != nil {
		return err
	}
	if err := unix.Mount("tmpfs", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, tmpOptions); err != nil {
		return err
	}
	for _, k := range keep {
		if err := k.place(); err != nil {
			return err
		}
	}
	if d := envValue(cfg.Env, "TMPDIR"); d != "" && Within(path.Clean(d), root) {
		if err := os.MkdirAll(path.Clean(d), 0o700); err != nil {
			return fmt.Errorf("TMPDIR: %w", err)
		}
	}
	return nil
}

// carry takes a detached copy of every tree to keep under root, before
// the tmpfs hides them: the writable trees (but $TMPDIR, which starts
// empty) read-write; read-only the working directory, this binary, the
// command's own program (an agent unpacked under /tmp, found as the
// init will find it, and its link's target) and the read-only paths (the
// agent's binary directories: pinning needs them there; the shared
// repository of a linked worktree, around its writable objects and refs).
func carry(root string, cfg *Config) ([]carried, error) {
	tmpdir := path.Clean(envValue(cfg.Env, "TMPDIR"))
	type tree struct {
		path string
		ro   bool
	}
	var trees []tree
	for _, w := range cfg.Writable {
		if Within(w, root) && w != tmpdir {
			trees = append(trees, tree{w, false})
		}
	}
	var ro []string
	ro = append(ro, cfg.Dir)
	if exe, err := os.Readlink("/proc/self/exe"); err == nil {
		ro = append(ro, exe)
	}
	if len(cfg.Argv) > 0 {
		if prog, err := lookPath(cfg.Argv[0], cfg.Env, cfg.Dir); err == nil {
			ro = append(ro, path.Clean(prog))
			if real, err := evalSymlinks(prog); err == nil {
				ro = append(ro, real)
			}
		}
	}
	for _, p := range append(ro, cfg.ReadOnly...) {
		trees = append(trees, tree{p, true})
	}
	// parents first, so that a tree's copy covers what lies in it (an
	// agent's binary directory and the binary), and a writable tree is
	// placed over the read-only copy of one that holds it; of one path,
	// the writable copy
	slices.SortStableFunc(trees, func(a, b tree) int { return len(a.path) - len(b.path) })
	var out []carried
	for _, t := range trees {
		if !Within(t.path, root) || coveredBy(t.path, t.ro, out) {
			continue
		}
		c, ok, err := clone(t.path, t.ro)
		if err != nil {
			return out, err
		}
		if ok {
			out = append(out, c)
		}
	}
	return out, nil
}

// coveredBy reports whether p lies in a tree carried already that shows
// it as it must be: any for a read-only p, a writable one for a writable p.
func coveredBy(p string, ro bool, cs []carried) bool {
	for _, c := range cs {
		if (p == c.path || Within(p, c.path)) && (ro || !c.ro) {
			return true
		}
	}
	return false
}

// clone copies the mount tree at p (recursively), read-only if ro; a
// path that does not exist is no error (ok false).
func clone(p string, ro bool) (c carried, ok bool, err error) {
	var st unix.Stat_t
	if err := unix.Stat(p, &st); err != nil {
		return c, false, nil
	}
	fd, err := unix.OpenTree(unix.AT_FDCWD, p, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE)
	if err != nil {
		return c, false, fmt.Errorf("open_tree %s: %w", p, err)
	}
	c = carried{path: p, fd: fd, dir: st.Mode&unix.S_IFMT == unix.S_IFDIR, ro: ro}
	if ro {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
			_ = unix.Close(fd)
			return c, false, fmt.Errorf("read-only %s: %w", p, err)
		}
	}
	return c, true, nil
}

// place makes a mount point at c.path in the new tmpfs and moves the
// copy there; a name that a read-only copy placed before brought along
// (one that holds this tree) is the mount point as it is.
func (c carried) place() error {
	if err := os.MkdirAll(path.Dir(c.path), 0o755); err != nil {
		return err
	}
	if err := c.mountPoint(); err != nil {
		return err
	}
	if err := unix.MoveMount(c.fd, "", unix.AT_FDCWD, c.path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", c.path, err)
	}
	return nil
}

func (c carried) mountPoint() error {
	if fi, err := os.Lstat(c.path); err == nil && fi.Mode()&os.ModeSymlink == 0 && fi.IsDir() == c.dir {
		return nil
	}
	if c.dir {
		return os.Mkdir(c.path, 0o700)
	}
	return os.WriteFile(c.path, nil, 0o400)
}

func anyWithin(paths []string, dir string) bool {
	for _, p := range paths {
		if Within(p, dir) {
			return true
		}
	}
	return false
}
