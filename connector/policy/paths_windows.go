//go:build windows

package policy

import (
	"errors"
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
