//go:build linux

package jail_linux

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// placeholder is a name the supervisor created so that the init can pin
// a missing read-only path for the run (a mount needs an existing name):
// an empty directory (mode 0555), or a file with Placeholders' content
// (0444). It is removed once the jail has ended, if it is still the very
// inode created; nothing that was there before is ever removed.
type placeholder struct {
	tree, rel string // rel below the writable tree that holds it
	dir       bool
	dev, ino  uint64
}

func (p placeholder) path() string { return filepath.Join(p.tree, p.rel) }

// makePlaceholders creates, for each missing ReadOnly path, a placeholder
// at its first missing component. It walks from the writable tree with
// openat and O_NOFOLLOW: a symbolic link on the way ends the walk (the
// init pins links otherwise), so nothing is created through a link the
// jail could have planted.
func makePlaceholders(cfg *initConfig, files map[string]string) (out []placeholder, err error) {
	contents := map[string]string{}
	for k, v := range files {
		contents[filepath.Clean(k)] = v
	}
	for _, ro := range cfg.ReadOnly {
		tree := treeOf(ro, cfg.Writable)
		if tree == "" || tree == ro {
			continue
		}
		if slices.ContainsFunc(cfg.Placeholders, func(p string) bool { return ro == p || within(ro, p) }) {
			continue // a placeholder for a missing parent pins it already (.git for .git/config)
		}
		content, isFile := contents[ro]
		ph, ok, err := placeFor(tree, ro[len(tree)+1:], content, isFile)
		if err != nil {
			return out, fmt.Errorf("placeholder for %s: %w", ro, err)
		}
		if ok {
			out = append(out, ph)
			cfg.Placeholders = append(cfg.Placeholders, ph.path())
		}
	}
	return out, nil
}

func placeFor(tree, rel, content string, isFile bool) (placeholder, bool, error) {
	parts := strings.Split(rel, "/")
	dirfd, err := unix.Open(tree, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return placeholder{}, false, nil // no tree: nothing to pin in it
	}
	defer func() { _ = unix.Close(dirfd) }()
	for i, name := range parts {
		fd, err := unix.Openat(dirfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if errors.Is(err, unix.ENOENT) {
			file := isFile && i == len(parts)-1
			return create(dirfd, name, placeholder{tree: tree, rel: strings.Join(parts[:i+1], "/"), dir: !file}, content)
		}
		if err != nil {
			return placeholder{}, false, err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
			_ = unix.Close(fd)
			return placeholder{}, false, err // exists, and not a directory to go on into
		}
		_ = unix.Close(dirfd)
		dirfd = fd
	}
	return placeholder{}, false, nil
}

// create makes the placeholder ph named name in dirfd.
func create(dirfd int, name string, ph placeholder, content string) (placeholder, bool, error) {
	if ph.dir {
		if err := unix.Mkdirat(dirfd, name, 0o555); err != nil {
			return ph, false, err
		}
	} else if err := createFile(dirfd, name, content); err != nil {
		return ph, false, err
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return ph, false, err
	}
	ph.dev, ph.ino = st.Dev, st.Ino
	return ph, true, nil
}

func createFile(dirfd int, name, content string) (err error) {
	fd, err := unix.Openat(dirfd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o444)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := unix.Close(fd); err == nil {
			err = cerr
		}
	}()
	_, err = unix.Write(fd, []byte(content))
	return err
}

// removePlaceholders removes what makePlaceholders created, innermost
// first, once no jailed process is left: each only if the name still
// holds the inode created (a directory only if empty).
func removePlaceholders(phs []placeholder, log *slog.Logger) {
	for i := len(phs) - 1; i >= 0; i-- {
		if err := phs[i].remove(); err != nil {
			log.Warn("jail placeholder left behind", "path", phs[i].path(), "err", err)
		}
	}
}

func (p placeholder) remove() error {
	dir, name := filepath.Split(p.rel)
	dirfd, err := openBeneath(p.tree, strings.TrimSuffix(dir, "/"))
	if err != nil {
		return err
	}
	defer func() { _ = unix.Close(dirfd) }()
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return err
	}
	if st.Dev != p.dev || st.Ino != p.ino {
		return errors.New("replaced since the jail started")
	}
	flags := 0
	if p.dir {
		flags = unix.AT_REMOVEDIR
	}
	return unix.Unlinkat(dirfd, name, flags)
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
