package folder

import (
	"fmt"
	"path/filepath"
)

// At is the folder a destructive command acts on: exactly dir (the named
// folder, or the one the user stands in), never a parent. dir must hold a
// .sandbox/ directory of its own (a link named .sandbox does not count);
// otherwise the error wraps ErrNotFound and names the enclosing project,
// if there is one, so that the user can name it on purpose.
func At(dir string) (Folder, error) {
	f, err := New(dir)
	if err != nil {
		return Folder{}, err
	}
	if f.Exists() {
		return f, nil
	}
	if up, ok := f.Enclosing(); ok {
		return Folder{}, notHere(fmt.Sprintf("%s has no .sandbox/ of its own (the enclosing project is %s; name it to act on it)",
			f.Root, up.Root))
	}
	return Folder{}, notHere(f.Root + " has no .sandbox/ (run `sandbox init` to make it a project)")
}

// notHere is ErrNotFound with a message of its own: "here or in any
// parent" would be untrue of a folder whose parent is a project.
type notHere string

func (e notHere) Error() string { return string(e) }
func (e notHere) Unwrap() error { return ErrNotFound }

// Enclosing is the nearest project strictly above f (a parent directory
// holding a .sandbox/ directory), if any.
func (f Folder) Enclosing() (Folder, bool) {
	for dir := filepath.Dir(f.Root); ; dir = filepath.Dir(dir) {
		up := Folder{Root: dir}
		if up.Exists() {
			return up, true
		}
		if filepath.Dir(dir) == dir {
			return Folder{}, false
		}
	}
}
