//go:build windows

package broker

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// replace is the Windows fallback: each component is checked with Lstat
// and a link or any other reparse point is refused. There is a window
// between the check and the write that the Unix walk does not have; the
// handle-based version is a later issue.
func (t target) replace(edit bool, _ writeConfig, change func(old []byte) ([]byte, error)) (created bool, data []byte, err error) {
	dir, err := checkDirs(t.base, t.dirs, !edit)
	if err != nil {
		return false, nil, err
	}
	path := filepath.Join(dir, t.name)
	fi, err := os.Lstat(path)
	exists := err == nil
	switch {
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return false, nil, err
	case exists && fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
		return false, nil, fmt.Errorf("%w: the target is a link or reparse point", ErrSymlink)
	case exists && !fi.Mode().IsRegular():
		return false, nil, ErrNotRegular
	case edit && !exists:
		return false, nil, ErrNoFile
	}
	var old []byte
	if edit {
		if old, err = readCapped(path); err != nil {
			return false, nil, err
		}
	}
	if data, err = change(old); err != nil {
		return false, nil, err
	}
	mode := os.FileMode(NewFileMode)
	if exists {
		mode = fi.Mode().Perm()
	}
	return !exists, data, writeReplace(dir, path, data, mode)
}

// checkDirs walks dirs below base refusing links and reparse points,
// creating missing directories when mkdir is set.
func checkDirs(base string, dirs []string, mkdir bool) (string, error) {
	at := base
	for _, d := range dirs {
		at = filepath.Join(at, d)
		fi, err := os.Lstat(at)
		if errors.Is(err, fs.ErrNotExist) && mkdir {
			if err = os.Mkdir(at, 0o755); err == nil {
				fi, err = os.Lstat(at)
			}
		}
		switch {
		case err != nil:
			return "", err
		case fi.Mode()&(fs.ModeSymlink|fs.ModeIrregular) != 0:
			return "", fmt.Errorf("%w: %s", ErrSymlink, at)
		case !fi.IsDir():
			return "", fmt.Errorf("%w: %s is not a directory", ErrPath, at)
		}
	}
	return at, nil
}

func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxEditSize+1))
	if err == nil && len(data) > MaxEditSize {
		err = ErrTooLarge
	}
	return data, err
}

func writeReplace(dir, path string, data []byte, mode os.FileMode) (err error) {
	f, err := os.CreateTemp(dir, ".sandbox-write-*")
	if err != nil {
		return fmt.Errorf("temporary file: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	os.Chmod(f.Name(), mode)
	return os.Rename(f.Name(), path)
}
