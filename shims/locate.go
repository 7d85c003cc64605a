package shims

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// site is where this shim runs: its directory, its project folder, and
// the file it was executed from.
type site struct {
	dir    string      // the shim directory ("" when not found)
	dirFI  os.FileInfo // its identity, for comparing PATH entries
	folder folder.Folder
	self   os.FileInfo // this executable (a link's target), to never exec it
}

// locate finds the shim directory: $SANDBOX_SHIM_DIR, else the directory
// of argv0 when the shim was called by a path, else the first PATH entry
// holding name as this very executable. The project is the folder around
// a .sandbox/shims directory, else the nearest .sandbox/ above the
// current directory.
func locate(name, argv0 string, path []string) (*site, error) {
	s := &site{self: selfInfo()}
	switch d := os.Getenv(EnvDir); {
	case filepath.IsAbs(d):
		s.dir = filepath.Clean(d)
	case strings.ContainsAny(argv0, `/\`):
		if abs, err := filepath.Abs(filepath.Dir(argv0)); err == nil {
			s.dir = abs
		}
	default:
		s.dir = findSelfOnPath(name, path, s.self)
	}
	if s.dir != "" {
		s.dirFI, _ = os.Stat(s.dir)
	}
	if s.dir != "" && filepath.Base(s.dir) == "shims" && filepath.Base(filepath.Dir(s.dir)) == folder.DirName {
		f, err := folder.New(filepath.Dir(filepath.Dir(s.dir)))
		if err == nil {
			s.folder = f
			return s, nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return s, err
	}
	f, err := folder.Find(wd)
	s.folder = f
	return s, err
}

// findSelfOnPath returns the first absolute PATH entry whose name is this
// executable.
func findSelfOnPath(name string, path []string, self os.FileInfo) string {
	if self == nil {
		return ""
	}
	for _, dir := range path {
		if !filepath.IsAbs(dir) {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, name+exeSuffix)); err == nil && os.SameFile(fi, self) {
			return filepath.Clean(dir)
		}
	}
	return ""
}
