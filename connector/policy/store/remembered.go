package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

const (
	rememberedName   = "remembered.json"
	rememberedDomain = "sandbox remembered v1"
	maxRemembered    = 10000
)

type rememberedFile struct {
	Entries []policy.Remembered `json:"entries"`
}

// rememberedFields are what an entry's signature covers: the folder root
// and every field.
func rememberedFields(r *policy.Remembered, root string) []string {
	return []string{root, string(r.Trigger), r.Tier.String(), r.Pattern, r.Reason, r.By,
		r.Created.UTC().Format(time.RFC3339Nano)}
}

// Remember stores r (signed) for folder f, replacing an entry with the
// same trigger and pattern. Created is set when zero.
func Remember(f folder.Folder, st *userstate.State, r policy.Remembered) error {
	if err := r.Validate(); err != nil {
		return fmt.Errorf("remember: %w", err)
	}
	if r.Created.IsZero() {
		r.Created = time.Now().UTC()
	}
	r.MAC = mac(st.Key, rememberedDomain, rememberedFields(&r, f.Root)...)
	path, err := rememberedPath(f, st)
	if err != nil {
		return err
	}
	return withLock(path, func() error { return addRemembered(path, r) })
}

// addRemembered rewrites the file at path with r replacing an entry of
// the same trigger and pattern.
func addRemembered(path string, r policy.Remembered) error {
	file, err := readRememberedFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remember: %w", err)
	}
	kept := file.Entries[:0]
	for _, e := range file.Entries {
		if e.Trigger != r.Trigger || e.Pattern != r.Pattern {
			kept = append(kept, e)
		}
	}
	if len(kept) >= maxRemembered {
		return fmt.Errorf("remember: more than %d remembered decisions", maxRemembered)
	}
	file.Entries = append(kept, r)
	js, err := json.MarshalIndent(file, "", "  ")
	if err != nil {
		return fmt.Errorf("remember: %w", err)
	}
	return atomicfile.WriteFile(path, append(js, '\n'), 0o600)
}

// LoadRemembered returns the valid remembered decisions of f. Unsigned,
// tampered or invalid entries are left out and reported as warnings.
func LoadRemembered(f folder.Folder, st *userstate.State) ([]policy.Remembered, []Warning) {
	path, err := rememberedPath(f, st)
	if err != nil {
		return nil, []Warning{{WarnRememberedFile, err.Error()}}
	}
	file, err := readRememberedFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []Warning{{WarnRememberedFile, fmt.Sprintf("remembered decisions ignored: %v", err)}}
	}
	var out []policy.Remembered
	var warns []Warning
	for i, e := range file.Entries {
		if !verifyMAC(st.Key, e.MAC, rememberedDomain, rememberedFields(&e, f.Root)...) {
			warns = append(warns, Warning{WarnBadRemembered, fmt.Sprintf(
				"remembered decision #%d (%s %s %q) ignored: %v", i+1, e.Tier, e.Trigger, e.Pattern, ErrBadRecord)})
			continue
		}
		if err := e.Validate(); err != nil {
			warns = append(warns, Warning{WarnBadRemembered, fmt.Sprintf(
				"remembered decision #%d ignored: %v", i+1, err)})
			continue
		}
		out = append(out, e)
	}
	return out, warns
}

func rememberedPath(f folder.Folder, st *userstate.State) (string, error) {
	dir, err := st.FolderDir(f.Root)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, rememberedName), nil
}

func readRememberedFile(path string) (rememberedFile, error) {
	var file rememberedFile
	data, err := readSmall(path, 16<<20)
	if err != nil {
		return file, err
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return rememberedFile{}, fmt.Errorf("%s: %w", path, err)
	}
	return file, nil
}

// Forget removes the remembered decisions of f whose ID is in ids (every
// one when all is set), signed or not, and returns the removed entries.
// An id that names no entry is an error (ErrNotFound) and nothing is
// removed.
func Forget(f folder.Folder, st *userstate.State, ids []string, all bool) ([]policy.Remembered, error) {
	path, err := rememberedPath(f, st)
	if err != nil {
		return nil, err
	}
	var gone []policy.Remembered
	err = withLock(path, func() error {
		file, err := readRememberedFile(path)
		if errors.Is(err, fs.ErrNotExist) && all {
			return nil
		}
		if err != nil {
			return fmt.Errorf("forget: %w", err)
		}
		want := map[string]bool{}
		for _, id := range ids {
			want[id] = true
		}
		var kept []policy.Remembered
		for _, e := range file.Entries {
			if all || want[e.ID()] {
				delete(want, e.ID())
				gone = append(gone, e)
				continue
			}
			kept = append(kept, e)
		}
		for id := range want {
			return fmt.Errorf("forget: %q: %w", id, ErrNotFound)
		}
		file.Entries = kept
		js, err := json.MarshalIndent(file, "", "  ")
		if err != nil {
			return fmt.Errorf("forget: %w", err)
		}
		return atomicfile.WriteFile(path, append(js, '\n'), 0o600)
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}
