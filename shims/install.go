package shims

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Install makes dir hold exactly the shims names, each the sandbox binary
// exe under that name: a symbolic link to exe, else a hard link, else a
// copy. An entry that already is one is kept; other files in dir (old
// shims) are removed, except the policy cache. Each shim is put in place
// by a rename, so a running jail never sees a half-made one.
func Install(dir, exe string, names []string) error {
	if err := CheckNames(names); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shims: %w", err)
	}
	self, err := os.Stat(exe)
	if err != nil {
		return fmt.Errorf("shims: the sandbox binary: %w", err)
	}
	for _, n := range names {
		if err := installOne(dir, exe, n+exeSuffix, self); err != nil {
			return err
		}
	}
	return removeOthers(dir, names)
}

// installOne puts exe at dir/name unless it is already there.
func installOne(dir, exe, name string, self os.FileInfo) error {
	target := filepath.Join(dir, name)
	fi, err := os.Stat(target)
	if err == nil && os.SameFile(fi, self) {
		if l, err := os.Readlink(target); err != nil || l == exe {
			return nil // the same binary: a current link, hard link or this very file
		}
	}
	if errors.Is(err, fs.ErrNotExist) && runtime.GOOS != "windows" && os.Symlink(exe, target) == nil {
		return nil // a new name: a symbolic link is made whole at once
	}
	tmp := filepath.Join(dir, ".tmp-"+name+"-"+randHex())
	if err := link(exe, tmp); err != nil {
		return fmt.Errorf("shims: %s: %w", name, err)
	}
	if err := os.Rename(tmp, target); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("shims: %s: %w", name, err)
	}
	return nil
}

// link makes path a symbolic link to exe, else a hard link, else a copy.
// On Windows, where a symbolic link needs a privilege (and Wine only
// pretends to make one), it is a hard link or a copy.
func link(exe, path string) error {
	errSym := errors.ErrUnsupported
	if runtime.GOOS != "windows" {
		errSym = os.Symlink(exe, path)
	}
	if errSym == nil {
		return nil
	}
	errHard := os.Link(exe, path)
	if errHard == nil {
		return nil
	}
	if err := copyFile(exe, path); err != nil {
		return errors.Join(errSym, errHard, err)
	}
	return nil
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(dst)
		}
	}()
	_, err = io.Copy(out, in)
	return err
}

// removeOthers deletes the files of dir that are not shims of names (nor
// the cache); directories are left alone.
func removeOthers(dir string, names []string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("shims: %w", err)
	}
	for _, e := range entries {
		n := strings.TrimSuffix(e.Name(), exeSuffix)
		if e.IsDir() || e.Name() == cacheName || slices.Contains(names, n) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("shims: remove %s: %w", e.Name(), err)
		}
	}
	return nil
}

func randHex() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
