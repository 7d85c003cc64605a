package launcher

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// maxGlobalConfig bounds the agent's global config file, read by the
// supervisor as untrusted input after the run. Claude Code's
// ~/.claude.json keeps per-project history and grows to a few MB on a
// busy machine; 64 MiB is far above that and still a bounded read.
const maxGlobalConfig = 64 << 20

// globalCopy is the per-run copy of the agent's global config file that
// the jail sees in place of the original (Claude Code rewrites
// ~/.claude.json all the time, so a read-only file breaks it).
type globalCopy struct {
	orig string // the agent's file
	copy string // the copy, in a per-run dir of the per-user state dir
	dir  string // the per-run dir, removed by merge
}

// prepareGlobal makes the per-run copy of path in the per-user state dir
// (hidden from the jail). A missing file is created empty ("{}") first,
// so that the jail cannot create it; a link or anything but a regular
// file gets no copy (it stays read-only).
func prepareGlobal(path, stateDir string) (g *globalCopy, err error) {
	if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Stat(filepath.Dir(path)); err != nil {
			return nil, nil // no home for it: nothing the jail could write either
		}
		if err := atomicfile.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
			return nil, fmt.Errorf("agent config %s: %w", path, err)
		}
	}
	data, err := readRegular(path, maxGlobalConfig)
	if err != nil {
		return nil, fmt.Errorf("agent config %s: %w", path, err)
	}
	dir, err := newRunDir(stateDir, "")
	if err != nil {
		return nil, err
	}
	g = &globalCopy{orig: path, copy: filepath.Join(dir, filepath.Base(path)), dir: dir}
	if err := os.WriteFile(g.copy, data, 0o600); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("per-run copy: %w", err)
	}
	return g, nil
}

// newRunDir makes a fresh per-run dir (name prefix, then a random id) in
// the per-user state dir (default: userstate.DefaultDir), which jails
// never see.
func newRunDir(stateDir, prefix string) (string, error) {
	if stateDir == "" {
		var err error
		if stateDir, err = userstate.DefaultDir(); err != nil {
			return "", err
		}
	}
	var id [8]byte
	rand.Read(id[:])
	dir := filepath.Join(stateDir, "runs", prefix+hex.EncodeToString(id[:]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("per-run dir: %w", err)
	}
	return dir, nil
}

// readRegular reads path without following a link, refusing anything but
// a regular file and more than max bytes.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(data)) > max {
		err = fmt.Errorf("larger than %d bytes", max)
	}
	return data, err
}

// merge takes from the jail's copy what cannot run code into the
// original, as it is now (the user may have run the agent elsewhere in
// the meantime), and removes the per-run dir. The copy is untrusted: read
// without following links, size-capped, strict JSON; a copy that fails
// any of that is dropped whole and the original left as it is.
func (g *globalCopy) merge() (changed bool, err error) {
	defer os.RemoveAll(g.dir)
	jailData, err := readRegular(g.copy, maxGlobalConfig)
	if err != nil {
		return false, fmt.Errorf("the jail's copy of %s: %w", g.orig, err)
	}
	jail, err := strictObject(jailData)
	if err != nil {
		return false, fmt.Errorf("the jail's copy of %s: %w", g.orig, err)
	}
	origData, err := readRegular(g.orig, maxGlobalConfig)
	if err != nil {
		return false, fmt.Errorf("%s: %w", g.orig, err)
	}
	orig, err := strictObject(origData)
	if err != nil {
		return false, fmt.Errorf("%s: %w (left as it is)", g.orig, err)
	}
	if !mergeSafe(orig, jail) {
		return false, nil
	}
	out, err := json.MarshalIndent(orig, "", "  ")
	if err != nil {
		return false, err
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Lstat(g.orig); err == nil {
		mode = fi.Mode().Perm()
	}
	return true, atomicfile.WriteFile(g.orig, append(out, '\n'), mode)
}

// strictObject decodes one JSON object and nothing after it.
func strictObject(data []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if m == nil {
		return nil, fmt.Errorf("not a JSON object")
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("data after the JSON object")
	}
	return m, nil
}
