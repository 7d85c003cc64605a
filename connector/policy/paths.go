package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// maxLinks bounds symlink resolution, like the kernel's ELOOP limit.
const maxLinks = 40

// errBadPath is why a path cannot be decided on; it always escalates.
var errBadPath = errors.New("path cannot be resolved")

// resolver turns a path as an agent wrote it into the absolute path the
// OS would open: relative to a working directory, "~" expanded, Windows
// forms normalised, ".." and symlinks resolved component by component on
// the longest existing prefix (a dangling link is followed to where it
// points, since writing through it creates that file).
type resolver struct {
	root    string // resolved project root: walks below it start there
	home    string // resolved home directory, "" when unknown
	windows bool   // apply Windows path forms
	// longName expands 8.3 short names of an existing path (Windows).
	longName func(string) (string, error)
}

func newResolver(root, home string) *resolver {
	return &resolver{root: root, home: home, windows: runtime.GOOS == "windows", longName: longPathName}
}

// resolve returns the absolute resolved form of p, relative to cwd (an
// absolute, already resolved directory).
func (r *resolver) resolve(p, cwd string) (string, error) {
	if p == "" || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("%w: empty or contains NUL", errBadPath)
	}
	p, err := r.expandHome(p)
	if err != nil {
		return "", err
	}
	if r.windows {
		if p, err = normalizeWindows(p, filepath.VolumeName(cwd)); err != nil {
			return "", err
		}
	}
	if !filepath.IsAbs(p) {
		p = cwd + string(filepath.Separator) + p
	}
	abs, err := r.walk(p)
	if err != nil {
		return "", err
	}
	if r.windows && r.longName != nil {
		return expandShortNames(abs, r.longName), nil
	}
	return abs, nil
}

func (r *resolver) expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, `~\`) {
		if strings.HasPrefix(p, "~") {
			return "", fmt.Errorf("%w: ~user paths are not resolved", errBadPath)
		}
		return p, nil
	}
	if r.home == "" {
		return "", fmt.Errorf("%w: home directory unknown", errBadPath)
	}
	return r.home + p[1:], nil
}

// walk is walkLinks, started at the project root (already resolved) when
// p is written below it: that saves a look-up per name of the root.
func (r *resolver) walk(p string) (string, error) {
	sep := string(filepath.Separator)
	switch {
	case r.root == "" || !strings.HasPrefix(p, r.root):
	case len(p) == len(r.root):
		return r.root, nil
	case strings.HasPrefix(p[len(r.root):], sep):
		return walkFrom(r.root, splitComps(p[len(r.root):]))
	}
	return walkLinks(p)
}

// walkLinks resolves ".." and symlinks in the absolute path p one
// component at a time. Once a component does not exist, the rest is
// appended lexically: nothing below a missing name can be a link.
func walkLinks(p string) (string, error) {
	vol := filepath.VolumeName(p)
	return walkFrom(vol+string(filepath.Separator), splitComps(p[len(vol):]))
}

// walkFrom resolves the names comps starting in the resolved directory cur.
func walkFrom(cur string, comps []string) (string, error) {
	for links := 0; len(comps) > 0; {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, c)
		fi, err := os.Lstat(next)
		if isMissing(err) {
			return filepath.Join(append([]string{next}, comps...)...), nil
		}
		if err != nil {
			return "", fmt.Errorf("%w: %w", errBadPath, err)
		}
		if !linkLike(next, fi) {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", fmt.Errorf("%w: too many symbolic links at %s", errBadPath, next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("%w: %w", errBadPath, err)
		}
		if filepath.IsAbs(target) {
			v := filepath.VolumeName(target)
			cur, target = v+string(filepath.Separator), target[len(v):]
		}
		comps = append(splitComps(target), comps...)
	}
	return cur, nil
}

func isMissing(err error) bool {
	if err == nil {
		return false
	}
	return errors.Is(err, fs.ErrNotExist) || isNotDir(err)
}

func splitComps(p string) []string {
	f := func(r rune) bool { return r == '/' || r == filepath.Separator }
	return strings.FieldsFunc(p, f)
}

// pathSegments splits an absolute path into the names compared against
// path patterns: the volume ("C:", "//server/share") first when there is
// one, then each name.
func pathSegments(abs string) []string {
	s := filepath.ToSlash(abs)
	vol := filepath.ToSlash(filepath.VolumeName(abs))
	segs := make([]string, 0, 8)
	if vol != "" {
		segs = append(segs, vol)
		s = s[len(vol):]
	}
	for _, x := range strings.Split(s, "/") {
		if x != "" {
			segs = append(segs, x)
		}
	}
	return segs
}

func foldSegments(segs []string) []string {
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = foldName(s)
	}
	return out
}

// within reports whether segs names prefix or something below it. It
// compares whole names, so /proj-evil is never inside /proj.
func within(segs, prefix []string) bool {
	if len(segs) < len(prefix) {
		return false
	}
	for i, s := range prefix {
		if segs[i] != s {
			return false
		}
	}
	return true
}

// normalizeWindows rewrites a Windows path into the one form the Win32
// layer would open: '/' becomes '\', the \\?\ prefix and its UNC form are
// removed, the drive letter is upper-cased, an MSYS /c/... path becomes
// C:\..., a rooted path takes the drive of cwdVol, ".." is removed
// lexically (Win32 does that before looking at links), trailing dots and
// spaces are dropped from every name and ":stream" / "::$DATA" suffixes
// are cut. Device paths, drive-relative paths (C:foo), volume GUID paths
// and reserved device names (CON, NUL, COM1, ...) are errors: they
// escalate. It is pure string work, so it is tested on every OS.
func normalizeWindows(p, cwdVol string) (string, error) {
	p = strings.ReplaceAll(p, "/", `\`)
	vol, rest, err := splitWinVolume(p, cwdVol)
	if err != nil {
		return "", err
	}
	comps, err := cleanWinComps(rest, vol != "")
	if err != nil {
		return "", err
	}
	if vol == "" {
		return strings.Join(comps, `\`), nil
	}
	return vol + `\` + strings.Join(comps, `\`), nil
}

// splitWinVolume separates the volume (C:, \\server\share) from the rest.
// vol is "" for a relative path.
func splitWinVolume(p, cwdVol string) (vol, rest string, err error) {
	up := strings.ToUpper(p)
	switch {
	case strings.HasPrefix(up, `\\?\UNC\`):
		return splitUNC(`\\` + p[len(`\\?\UNC\`):])
	case strings.HasPrefix(p, `\\?\`) && isDriveAbs(p[4:]):
		return strings.ToUpper(p[4:5]) + ":", p[6:], nil
	case strings.HasPrefix(p, `\\?\`), strings.HasPrefix(p, `\\.\`), strings.HasPrefix(p, `\??\`):
		return "", "", fmt.Errorf("%w: device or volume path %q", errBadPath, p)
	case strings.HasPrefix(p, `\\`):
		return splitUNC(p)
	case isDriveAbs(p):
		return strings.ToUpper(p[:1]) + ":", p[3:], nil
	case len(p) >= 2 && p[1] == ':':
		return "", "", fmt.Errorf("%w: drive-relative path %q", errBadPath, p)
	case isMSYSDrive(p):
		return strings.ToUpper(p[1:2]) + ":", strings.TrimPrefix(p[2:], `\`), nil
	case strings.HasPrefix(p, `\`):
		if cwdVol == "" {
			return "", "", fmt.Errorf("%w: rooted path %q without a drive", errBadPath, p)
		}
		return cwdVol, p[1:], nil
	}
	return "", p, nil
}

func splitUNC(p string) (vol, rest string, err error) {
	parts := strings.SplitN(p[2:], `\`, 3)
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" || parts[0] == "." || parts[0] == "?" {
		return "", "", fmt.Errorf("%w: incomplete UNC path %q", errBadPath, p)
	}
	if len(parts) == 3 {
		rest = parts[2]
	}
	return `\\` + strings.ToLower(parts[0]) + `\` + strings.ToLower(parts[1]), rest, nil
}

func isDriveAbs(p string) bool {
	return len(p) >= 3 && isLetter(p[0]) && p[1] == ':' && p[2] == '\\'
}

// isMSYSDrive recognises Git Bash's /c/... (already with '\').
func isMSYSDrive(p string) bool {
	return len(p) >= 2 && p[0] == '\\' && isLetter(p[1]) && (len(p) == 2 || p[2] == '\\')
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// cleanWinComps normalises each name and removes "." and ".." lexically.
// A ".." never climbs above the volume of an absolute path.
func cleanWinComps(rest string, abs bool) ([]string, error) {
	var out []string
	for _, c := range strings.Split(rest, `\`) {
		if c == "" || c == "." {
			continue
		}
		if c == ".." {
			switch {
			case len(out) > 0 && out[len(out)-1] != "..":
				out = out[:len(out)-1]
			case !abs:
				out = append(out, "..")
			}
			continue
		}
		n, err := normalizeWinName(c)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// normalizeWinName cuts a ":stream" suffix and trailing dots and spaces,
// and refuses reserved device names and names made only of dots.
func normalizeWinName(c string) (string, error) {
	if i := strings.IndexByte(c, ':'); i >= 0 {
		c = c[:i]
	}
	n := strings.TrimRight(c, ". ")
	if n == "" {
		return "", fmt.Errorf("%w: name %q is empty once Windows trims it", errBadPath, c)
	}
	if isReservedWinName(n) {
		return "", fmt.Errorf("%w: %q is a reserved device name on Windows", errBadPath, c)
	}
	return n, nil
}

// isReservedWinName reports CON, PRN, AUX, NUL, COM0-9, LPT0-9 (also with
// superscript digits, CONIN$ and CONOUT$), with or without an extension.
func isReservedWinName(n string) bool {
	base := n
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 || (base[:3] != "COM" && base[:3] != "LPT") {
		return false
	}
	switch base[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
		return true
	}
	return false
}

// isWinNul reports the null device named as itself: NUL or NUL: (any
// case), or the device path \\.\NUL. Only these: a reserved name in a
// directory or with an extension (x\NUL, NUL.txt, "NUL.") is a device on
// some Windows versions and a file on others (Windows 11 creates NUL.txt),
// so normalizeWindows refuses it and it escalates.
func isWinNul(p string) bool {
	p = strings.ReplaceAll(p, "/", `\`)
	switch strings.ToUpper(p) {
	case "NUL", "NUL:", `\\.\NUL`:
		return true
	}
	return false
}
