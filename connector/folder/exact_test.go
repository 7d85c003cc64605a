package folder

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAtNeverWalksUp(t *testing.T) {
	parent, _ := filepath.EvalSymlinks(t.TempDir())
	if err := (Folder{Root: parent}).Create(); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(parent, "sub")
	linked := filepath.Join(parent, "linked")
	os.Mkdir(sub, 0o755)
	os.Mkdir(linked, 0o755)
	if err := os.Symlink(filepath.Join(parent, DirName), filepath.Join(linked, DirName)); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{sub, linked} {
		_, err := At(dir)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "enclosing project is "+parent) {
			t.Errorf("At(%s) = %v, want not found naming the enclosing project", dir, err)
		}
	}
	if f, err := At(parent); err != nil || f.Root != parent {
		t.Errorf("At(parent) = %v, %v", f, err)
	}
}

func TestAtResolvesALinkToTheProject(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	if err := (Folder{Root: root}).Create(); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	if f, err := At(link); err != nil || f.Root != root {
		t.Errorf("At(link) = %v, %v; want %s", f, err, root)
	}
}
