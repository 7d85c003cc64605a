//go:build windows

package policy

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

func isNotDir(err error) bool { return errors.Is(err, windows.ERROR_DIRECTORY) }

// longPathName expands 8.3 short names (PROGRA~1) of an existing path.
func longPathName(p string) (string, error) {
	in, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return "", err
	}
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetLongPathName(in, &buf[0], uint32(len(buf)))
	if err != nil {
		return "", err
	}
	if int(n) > len(buf) {
		return "", errors.New("long path name too long")
	}
	return windows.UTF16ToString(buf[:n]), nil
}

// expandShortNames applies long to the longest existing prefix of p and
// appends the rest unchanged (names that do not exist yet are not short
// names of anything).
func expandShortNames(p string, long func(string) (string, error)) string {
	vol := filepath.VolumeName(p)
	rest := strings.Split(strings.TrimPrefix(p[len(vol):], `\`), `\`)
	for i := len(rest); i >= 0; i-- {
		prefix := vol + `\` + strings.Join(rest[:i], `\`)
		if l, err := long(prefix); err == nil {
			return filepath.Join(append([]string{l}, rest[i:]...)...)
		}
	}
	return p
}

// linkLike reports whether the name at p, which Lstat described as fi,
// redirects the paths below it: a symbolic link, or a junction or mount
// point, which Go (since 1.23) reports as an irregular file rather than a
// link, and which any user can create (mklink /J). An irregular file whose
// reparse tag cannot be read counts as a link: reading it then fails and
// the path escalates.
func linkLike(p string, fi fs.FileInfo) bool {
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		return true
	case m&fs.ModeIrregular == 0:
		return false
	}
	const nameSurrogate = 0x20000000 // IsReparseTagNameSurrogate
	tag, err := reparseTag(p)
	return err != nil || tag&nameSurrogate != 0
}

// reparseTag is the reparse tag of the reparse point at p.
func reparseTag(p string) (uint32, error) {
	in, err := windows.UTF16PtrFromString(p)
	if err != nil {
		return 0, err
	}
	var fd windows.Win32finddata
	h, err := windows.FindFirstFile(in, &fd)
	if err != nil {
		return 0, err
	}
	windows.FindClose(h)
	if fd.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT == 0 {
		return 0, errors.New("not a reparse point")
	}
	return fd.Reserved0, nil
}
