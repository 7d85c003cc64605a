//go:build unix

package broker

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// replace writes the new content in place of t.name in its parent
// directory, which is reached without following links.
func (t target) replace(edit bool, c writeConfig, change func(old []byte) ([]byte, error)) (created bool, data []byte, err error) {
	dirfd, err := t.openParent(!edit)
	if err != nil {
		return false, nil, err
	}
	defer unix.Close(dirfd)
	cur, err := statAt(dirfd, t.name)
	if err != nil {
		return false, nil, err
	}
	var old []byte
	if edit {
		if !cur.exists {
			return false, nil, ErrNoFile
		}
		if old, err = readAt(dirfd, t.name, cur); err != nil {
			return false, nil, err
		}
	}
	if data, err = change(old); err != nil {
		return false, nil, err
	}
	return !cur.exists, data, commitAt(dirfd, t.name, data, cur, c.stage)
}

// fileInfo is what the target was before the write.
type fileInfo struct {
	exists   bool
	mode     uint32 // permission bits to keep
	uid, gid int
	dev, ino uint64
}

// statAt describes name in dirfd without following it: absent, or a
// regular file. A link or anything else is refused.
func statAt(dirfd int, name string) (fileInfo, error) {
	var st unix.Stat_t
	err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return fileInfo{mode: NewFileMode, uid: -1, gid: -1}, nil
	}
	if err != nil {
		return fileInfo{}, err
	}
	switch uint32(st.Mode) & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFLNK:
		return fileInfo{}, fmt.Errorf("%w: the target is a link", ErrSymlink)
	default:
		return fileInfo{}, ErrNotRegular
	}
	return fileInfo{
		exists: true, mode: uint32(st.Mode) & 0o1777,
		uid: int(st.Uid), gid: int(st.Gid), dev: uint64(st.Dev), ino: uint64(st.Ino),
	}, nil
}

// readAt reads the file that statAt described, checking that the file
// opened is that one and has a single link.
func readAt(dirfd int, name string, cur fileInfo) (data []byte, err error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	switch {
	case uint64(st.Dev) != cur.dev || uint64(st.Ino) != cur.ino || uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG:
		return nil, fmt.Errorf("%w: the file changed while it was checked", ErrNotRegular)
	case uint64(st.Nlink) != 1:
		return nil, ErrHardLink
	case st.Size > MaxEditSize:
		return nil, ErrTooLarge
	}
	data, err = io.ReadAll(io.LimitReader(f, MaxEditSize+1))
	if err == nil && len(data) > MaxEditSize {
		err = ErrTooLarge
	}
	return data, err
}

// commitAt writes data to a new temporary file, in stage when it is on
// the same file system as dirfd (else in dirfd), renames it over name and
// checks that what is at name then is that file with those bytes. A link
// planted at name after the check is replaced, never followed.
func commitAt(dirfd int, name string, data []byte, cur fileInfo, stage string) error {
	stagefd, err := stagingDir(dirfd, stage)
	if err != nil {
		return err
	}
	defer unix.Close(stagefd)
	tmp, f, err := writeTempAt(stagefd, dirfd, data, cur)
	if err != nil {
		return err
	}
	defer f.Close()
	err = unix.Renameat(stagefd, tmp, dirfd, name)
	if errors.Is(err, unix.EXDEV) && stagefd != dirfd { // same device, another mount
		unix.Unlinkat(stagefd, tmp, 0)
		return commitAt(dirfd, name, data, cur, "")
	}
	if err != nil {
		unix.Unlinkat(stagefd, tmp, 0)
		return fmt.Errorf("rename into place: %w", err)
	}
	if err := verifyAt(dirfd, name, f, data); err != nil {
		return err
	}
	if err := unix.Fsync(dirfd); err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}

// stagingDir opens stage (not following a link at its last component)
// when it is a directory on dirfd's file system; otherwise, or without a
// stage, it returns a duplicate of dirfd: the write stages beside the
// target.
func stagingDir(dirfd int, stage string) (int, error) {
	if stage != "" {
		fd, err := unix.Open(stage, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			var a, b unix.Stat_t
			if unix.Fstat(fd, &a) == nil && unix.Fstat(dirfd, &b) == nil && a.Dev == b.Dev {
				return fd, nil
			}
			unix.Close(fd)
		}
	}
	fd, err := unix.FcntlInt(uintptr(dirfd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("staging directory: %w", err)
	}
	return fd, nil
}

// verifyAt checks that name in dirfd is now the file f that was renamed
// there (not a file renamed over the temporary name before the rename, nor
// over the target after it) and that it holds exactly data.
func verifyAt(dirfd int, name string, f *os.File, data []byte) error {
	var placed, ours unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &placed, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return fmt.Errorf("%w: %s is gone after the rename: %w", ErrSwapped, name, err)
	}
	if err := unix.Fstat(int(f.Fd()), &ours); err != nil {
		return err
	}
	if placed.Dev != ours.Dev || placed.Ino != ours.Ino {
		return fmt.Errorf("%w: %s is not the file written", ErrSwapped, name)
	}
	got := make([]byte, len(data)+1)
	n, err := f.ReadAt(got, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read back: %w", err)
	}
	if !bytes.Equal(got[:n], data) {
		return fmt.Errorf("%w: %s changed while it was written", ErrSwapped, name)
	}
	return nil
}

// writeTempAt creates a temporary file in dirfd holding data, with cur's
// mode (and owner, when the broker runs as root: for a new file, the
// owner of the target's directory ownerfd), synced to disk.
// The file is returned open, for the check after the rename.
func writeTempAt(dirfd, ownerfd int, data []byte, cur fileInfo) (tmp string, f *os.File, err error) {
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp = ".sandbox-write-" + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(dirfd, tmp, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return "", nil, fmt.Errorf("temporary file: %w", err)
	}
	f = os.NewFile(uintptr(fd), tmp)
	defer func() {
		if err != nil {
			f.Close()
			unix.Unlinkat(dirfd, tmp, 0)
			err = fmt.Errorf("temporary file: %w", err)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return "", nil, err
	}
	if os.Geteuid() == 0 {
		keepOwner(ownerfd, fd, cur)
	}
	if err = unix.Fchmod(fd, cur.mode); err != nil {
		return "", nil, err
	}
	return tmp, f, f.Sync()
}

// keepOwner gives the new file the old file's owner, or the directory's
// for a new file, so that a broker running as root leaves no root-owned
// files in the user's tree. Best effort.
func keepOwner(dirfd, fd int, cur fileInfo) {
	if !cur.exists {
		var st unix.Stat_t
		if unix.Fstat(dirfd, &st) != nil {
			return
		}
		cur.uid, cur.gid = int(st.Uid), int(st.Gid)
	}
	unix.Fchown(fd, cur.uid, cur.gid)
}
