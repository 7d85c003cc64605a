//go:build linux

package jail_linux

import (
	"errors"
	"fmt"
	"github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// placeholder is a name the supervisor created so that the init can pin
// a missing read-only path for the run (a mount needs an existing name):
// an empty directory (mode 0555), or a file with Placeholders' content
// (0444), marked with the extended attribute placeholderAttr. Whichever
// run ends last while one is unused removes it, if it still is a marked,
// unchanged placeholder; nothing else is ever removed. The jail cannot
// make such a name (the names are pinned), so a marked one is ours.
type placeholder struct {
	tree, rel string // rel below the writable tree that holds it
	dir       bool
	content   string // of a file
	made      bool   // by this run
	dev, ino  uint64
}

const placeholderAttr = "user.sandbox.placeholder"

func (p placeholder) path() string { return filepath.Join(p.tree, p.rel) }

// pins is what the supervisor holds for one run: the placeholders it
// made, and a shared lock (flock) on every pinned name, taken before the
// init mounts over them and kept until the jail has ended. A name removed
// on the host takes the jail's mounts on it along (the kernel detaches
// mounts on a removed dentry in every namespace), so a run that ends never
// removes a placeholder that another run of the same project (a parallel
// tool call) still stands on: it needs the lock exclusively to remove one.
type pins struct {
	points []placeholder // every pinned name locked, made by this run or not
	locks  []int
	stash  stash // where placeholders wait between runs
}

// pinRetries bounds the walks of one name that another run's removal
// keeps undoing.
const pinRetries = 5

// makePins creates, for each missing ReadOnly path, a placeholder at its
// first missing component (one from stashDir when it holds one), and
// locks each pinned name. It walks from the writable tree with openat and
// O_NOFOLLOW: a symbolic link on the way ends the walk (the init pins
// links otherwise), so nothing is created through a link the jail could
// have planted.
func makePins(cfg *initConfig, files map[string]string, stashDir string) (ps *pins, err error) {
	ps = &pins{stash: openStash(stashDir)}
	defer func() {
		if err != nil {
			ps.release(slog.New(slog.DiscardHandler))
		}
	}()
	contents := map[string]string{}
	for k, v := range files {
		contents[filepath.Clean(k)] = v
	}
	for _, ro := range cfg.ReadOnly {
		tree := jailinit.TreeOf(ro, cfg.Writable)
		if tree == "" || tree == ro {
			continue
		}
		if slices.ContainsFunc(cfg.Placeholders, func(p string) bool { return ro == p || jailinit.Within(ro, p) }) {
			continue // a placeholder for a missing parent pins it already (.git for .git/config)
		}
		content, isFile := contents[ro]
		if err := ps.pin(cfg, tree, ro[len(tree)+1:], content, isFile); err != nil {
			return ps, fmt.Errorf("pin %s: %w", ro, err)
		}
	}
	return ps, nil
}

func (ps *pins) pin(cfg *initConfig, tree, rel, content string, isFile bool) error {
	for range pinRetries {
		w := walk{tree: tree, parts: strings.Split(rel, "/"), content: content, isFile: isFile, stash: ps.stash,
			noLinks: slices.Contains(cfg.NoLinks, tree)}
		lock, err := w.run()
		if errors.Is(err, errPinMoved) {
			continue
		}
		if err != nil {
			return err
		}
		if lock >= 0 {
			ps.locks = append(ps.locks, lock)
			ps.points = append(ps.points, w.ph)
		}
		if w.made || w.marked { // the init binds it read-only and stops there
			cfg.Placeholders = append(cfg.Placeholders, w.ph.path())
		}
		return nil
	}
	return fmt.Errorf("%w: it keeps changing", errPinMoved)
}

var errPinMoved = errors.New("pinned name replaced while it was locked")

// walk is one walk to a pinned name.
type walk struct {
	tree    string
	parts   []string
	content string
	isFile  bool
	stash   stash
	noLinks bool // the tree itself is reached without a link (FS.NoLinks)

	made   bool        // ph was created by this walk
	marked bool        // ph is another run's placeholder
	ph     placeholder // the pin point
}

// run walks down and returns the locked descriptor of the pin point: the
// name itself, a non-directory on the way, or the placeholder made at the
// first missing component (-1: none to lock, e.g. a link).
func (w *walk) run() (int, error) {
	dirfd, err := openTree(w.tree, w.noLinks)
	if err != nil {
		return -1, nil // no tree (or a link where none may be: the init refuses it): nothing to pin in it
	}
	defer func() { _ = unix.Close(dirfd) }()
	for i, name := range w.parts {
		fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			w.point(i, !w.isFile || i < len(w.parts)-1)
			took, err := w.stash.take(w.ph, dirfd, name)
			if !took && err == nil {
				err = create(dirfd, name, w.ph.dir, w.content)
			}
			if errors.Is(err, unix.EEXIST) {
				return -1, errPinMoved // another run made it just now: walk again
			} else if err != nil {
				return -1, err
			}
			w.made, w.ph.made = true, true
			return lockAt(dirfd, name, &w.ph)
		}
		if err != nil {
			return -1, err
		}
		var st unix.Stat_t
		err = unix.Fstat(fd, &st)
		typ := st.Mode & unix.S_IFMT
		if err != nil || typ == unix.S_IFLNK {
			_ = unix.Close(fd)
			return -1, err
		}
		marked := isPlaceholder(fd) // another run's, which pins what lies below it
		if i == len(w.parts)-1 || typ != unix.S_IFDIR || marked {
			_ = unix.Close(fd)
			w.point(i, typ == unix.S_IFDIR)
			w.marked = marked
			return lockAt(dirfd, name, &w.ph)
		}
		_ = unix.Close(dirfd)
		dirfd = fd
	}
	return -1, nil
}

// point sets the pin point to the walk's component i, a directory or a
// file (whose placeholder content is the walk's).
func (w *walk) point(i int, dir bool) {
	w.ph = placeholder{tree: w.tree, rel: strings.Join(w.parts[:i+1], "/"), dir: dir}
	if !dir {
		w.ph.content = w.content
	}
}

// isPlaceholder reports whether fd (any kind of descriptor) carries the
// placeholder mark.
func isPlaceholder(fd int) bool {
	_, err := unix.Getxattr(fmt.Sprintf("/proc/self/fd/%d", fd), placeholderAttr, nil)
	return err == nil
}

// create makes an empty directory (0555) or a file with content (0444)
// named name in dirfd, marked as a placeholder (while still writable:
// setting an extended attribute needs write permission).
func create(dirfd int, name string, dir bool, content string) (err error) {
	var fd int
	if dir {
		if err := unix.Mkdirat(dirfd, name, 0o755); err != nil {
			return err
		}
		fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	} else {
		fd, err = unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
	}
	if err != nil {
		return err
	}
	defer func() {
		if cerr := unix.Close(fd); err == nil {
			err = cerr
		}
	}()
	mode := uint32(0o555)
	if !dir {
		mode = 0o444
		if _, err := unix.Write(fd, []byte(content)); err != nil {
			return err
		}
	}
	_ = unix.Fsetxattr(fd, placeholderAttr, []byte("1"), 0) // no xattrs here: only this run removes it
	return unix.Fchmod(fd, mode)
}

// lockAt opens name in dirfd and takes a shared lock on it, then checks
// that the name still holds the locked inode (a run that removed it
// meanwhile held the lock exclusively). A name that cannot be opened for
// reading (mode 000, a socket) is pinned without a lock. ph learns the
// inode.
func lockAt(dirfd int, name string, ph *placeholder) (int, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		if ph.made {
			return -1, err
		}
		return -1, nil
	}
	if err := unix.Flock(fd, unix.LOCK_SH); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	var locked, now unix.Stat_t
	if err := unix.Fstat(fd, &locked); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	if err := unix.Fstatat(dirfd, name, &now, unix.AT_SYMLINK_NOFOLLOW); err != nil || now.Dev != locked.Dev || now.Ino != locked.Ino {
		_ = unix.Close(fd)
		return -1, errPinMoved
	}
	ph.dev, ph.ino = locked.Dev, locked.Ino
	return fd, nil
}

// release drops the locks and then removes the placeholders among the
// pinned names, innermost first, once no jailed process of this run is
// left: each only if no other run holds it (an exclusive lock at once),
// the name still holds the inode locked, it is this run's or marked, and
// it is unchanged (a directory only if empty, a file with its content);
// an unchanged one goes to the stash rather than away. One that another
// run still stands on stays for that run to remove.
func (ps *pins) release(log *slog.Logger) {
	if ps == nil {
		return
	}
	for _, fd := range ps.locks {
		_ = unix.Close(fd)
	}
	ps.locks = nil
	for i := len(ps.points) - 1; i >= 0; i-- {
		if err := ps.points[i].remove(ps.stash); err != nil {
			log.Debug("jail placeholder left", "path", ps.points[i].path(), "err", err)
		}
	}
	ps.points = nil
	ps.stash.close()
	ps.stash = stash{}
}

var errNotPlaceholder = errors.New("not a placeholder")

// remove stashes or removes the placeholder p (see release).
func (p placeholder) remove(s stash) error {
	dir, name := filepath.Split(p.rel)
	dirfd, err := openBeneath(p.tree, strings.TrimSuffix(dir, "/"))
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(dirfd) }()
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(fd) }()
	if !p.made && !isPlaceholder(fd) {
		return nil // a name of the project's own
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return fmt.Errorf("another run pins it: %w", err)
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if st.Dev != p.dev || st.Ino != p.ino {
		return errors.New("replaced since the jail started")
	}
	if s.put(p, fd, dirfd, name) {
		return nil
	}
	if p.dir {
		return unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR)
	}
	if b := make([]byte, len(p.content)+1); st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size != int64(len(p.content)) || !sameContent(fd, b, p.content) {
		return errNotPlaceholder
	}
	return unix.Unlinkat(dirfd, name, 0)
}

func sameContent(fd int, buf []byte, want string) bool {
	n, err := unix.Pread(fd, buf, 0)
	return err == nil && string(buf[:n]) == want
}

// openBeneath opens the directory rel below tree without following a
// symbolic link on the way.
func openBeneath(tree, rel string) (int, error) {
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS}
	root, err := unix.Open(tree, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil || rel == "" {
		return root, err
	}
	defer func() { _ = unix.Close(root) }()
	return unix.Openat2(root, rel, &how)
}

// openTree opens the writable tree of a walk, through no symbolic link
// at all when noLinks says so.
func openTree(tree string, noLinks bool) (int, error) {
	if !noLinks {
		return unix.Open(tree, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_SYMLINKS}
	return unix.Openat2(unix.AT_FDCWD, tree, &how)
}
