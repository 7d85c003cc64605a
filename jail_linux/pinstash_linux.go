//go:build linux

package jail_linux

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"golang.org/x/sys/unix"
)

// stash is a directory of the supervisor's own (the project's
// .sandbox/pins), out of every jail's reach, where placeholders wait
// between runs instead of being removed at a run's end and made again at
// the next start: on ext4 an empty directory made and removed cost
// 0.1-1 ms each (a block and an inode allocated, journaled and freed),
// a dozen per run in a project without .git, .github, .vscode, ...,
// where moving one in and out is two renames of 10-20 µs. A placeholder
// is stashed only unchanged (marked, empty or with its content, its
// mode) and taken back only after the same checks; whatever fails them
// is made or removed as before. The zero value is no stash (none given,
// or it cannot be made).
type stash struct {
	fd   int
	open bool
}

func openStash(dir string) stash {
	if dir == "" {
		return stash{}
	}
	if err := unix.Mkdir(dir, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return stash{}
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return stash{}
	}
	return stash{fd: fd, open: true}
}

func (s stash) close() {
	if s.open {
		_ = unix.Close(s.fd)
	}
}

// slot names the stash entry of a placeholder: its kind and a hash of
// its name in its tree and what it holds, not of the tree: the worktrees
// of a repository's agents share one stash (MAIN's), and a placeholder
// one agent's run left there serves the next agent's, whose worktree is
// another tree. Two pins of one run with the same name and content in
// two trees share a slot: the first takes the entry, the second is made.
func slot(p placeholder) string {
	h := sha256.Sum256([]byte(p.rel + "\x00" + p.content))
	kind := "f-"
	if p.dir {
		kind = "d-"
	}
	return kind + hex.EncodeToString(h[:12])
}

// take moves a stashed placeholder for p to name in dirfd (never over an
// existing name): ok reports whether it did; a stashed entry that is not
// an unchanged placeholder is dropped.
func (s stash) take(p placeholder, dirfd int, name string) (ok bool, err error) {
	if !s.open {
		return false, nil
	}
	sl := slot(p)
	fd, err := unix.Openat(s.fd, sl, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false, nil
	}
	unchanged := unchangedPlaceholder(fd, p)
	_ = unix.Close(fd)
	if !unchanged {
		s.drop(sl, p.dir)
		return false, nil
	}
	err = unix.Renameat2(s.fd, sl, dirfd, name, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EEXIST):
		return false, err // the name was made meanwhile: the caller walks again
	}
	return false, nil // taken by a parallel run, another file system, ...: make one
}

func (s stash) drop(sl string, dir bool) {
	flags := 0
	if dir {
		flags = unix.AT_REMOVEDIR
	}
	_ = unix.Unlinkat(s.fd, sl, flags)
}

// put moves the placeholder p, open as fd and checked by the caller to
// be the one locked, from name in dirfd into the stash; ok false leaves
// it for the caller to remove.
func (s stash) put(p placeholder, fd, dirfd int, name string) bool {
	if !s.open || !unchangedPlaceholder(fd, p) {
		return false
	}
	return unix.Renameat2(dirfd, name, s.fd, slot(p), unix.RENAME_NOREPLACE) == nil
}

// unchangedPlaceholder reports whether fd is a placeholder as create
// makes it: marked, mode 0555 and empty for a directory, mode 0444 with
// p's content for a file.
func unchangedPlaceholder(fd int, p placeholder) bool {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || !isPlaceholder(fd) {
		return false
	}
	typ, perm := st.Mode&unix.S_IFMT, st.Mode&0o7777
	if p.dir {
		return typ == unix.S_IFDIR && perm == 0o555 && emptyDir(fd)
	}
	return typ == unix.S_IFREG && perm == 0o444 && st.Size == int64(len(p.content)) &&
		sameContent(fd, make([]byte, len(p.content)+1), p.content)
}

// emptyDir reports whether the directory open as fd holds nothing but
// . and .. (which ParseDirent leaves out).
func emptyDir(fd int) bool {
	buf := make([]byte, 4096)
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return false
		}
		if n == 0 {
			return true
		}
		if _, count, _ := unix.ParseDirent(buf[:n], 1, nil); count > 0 {
			return false
		}
	}
}
