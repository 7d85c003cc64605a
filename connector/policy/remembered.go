package policy

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

const (
	rememberedName   = "remembered.json"
	rememberedDomain = "sandbox remembered v1"
	maxRemembered    = 10000
)

// Remembered is a human's "always allow" or "always deny" for one
// pattern of one trigger in one folder. Entries live in the per-folder
// state dir (which the jail can neither read nor write), each signed with
// the per-user key over the folder root and every field.
type Remembered struct {
	Trigger Trigger   `json:"trigger"`
	Tier    Tier      `json:"tier"` // Allow or Deny
	Pattern string    `json:"pattern"`
	Reason  string    `json:"reason,omitempty"`
	By      string    `json:"by,omitempty"` // who decided, for the audit
	Created time.Time `json:"created"`
	MAC     string    `json:"mac"`
}

type rememberedFile struct {
	Entries []Remembered `json:"entries"`
}

func (r *Remembered) fields(root string) []string {
	return []string{root, string(r.Trigger), r.Tier.String(), r.Pattern, r.Reason, r.By,
		r.Created.UTC().Format(time.RFC3339Nano)}
}

// rule compiles the entry into a rule; the error names what is wrong.
func (r *Remembered) rule() (*Rule, error) {
	if r.Tier != Allow && r.Tier != Deny {
		return nil, fmt.Errorf("remembered decision must be allow or deny, not %v", r.Tier)
	}
	rule := &Rule{Trigger: r.Trigger, Tier: r.Tier, Pattern: r.Pattern, Reason: r.Reason}
	if err := rule.compile(); err != nil {
		return nil, err
	}
	return rule, nil
}

// Remember stores r (signed) for folder f, replacing an entry with the
// same trigger and pattern. Created is set when zero.
func Remember(f folder.Folder, st *userstate.State, r Remembered) error {
	if _, err := r.rule(); err != nil {
		return fmt.Errorf("remember: %w", err)
	}
	if r.Created.IsZero() {
		r.Created = time.Now().UTC()
	}
	r.MAC = mac(st.Key, rememberedDomain, r.fields(f.Root)...)
	path, err := rememberedPath(f, st)
	if err != nil {
		return err
	}
	return withLock(path, func() error { return addRemembered(path, r) })
}

// addRemembered rewrites the file at path with r replacing an entry of
// the same trigger and pattern.
func addRemembered(path string, r Remembered) error {
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
func LoadRemembered(f folder.Folder, st *userstate.State) ([]Remembered, []Warning) {
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
	var out []Remembered
	var warns []Warning
	for i, e := range file.Entries {
		if !verifyMAC(st.Key, e.MAC, rememberedDomain, e.fields(f.Root)...) {
			warns = append(warns, Warning{WarnBadRemembered, fmt.Sprintf(
				"remembered decision #%d (%s %s %q) ignored: %v", i+1, e.Tier, e.Trigger, e.Pattern, ErrBadRecord)})
			continue
		}
		if _, err := e.rule(); err != nil {
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

// ID is a short, stable name for the entry (a prefix of its signature),
// which `sandbox remembered forget` takes.
func (r *Remembered) ID() string {
	if len(r.MAC) < 12 {
		return r.MAC
	}
	return r.MAC[:12]
}

// Forget removes the remembered decisions of f whose ID is in ids (every
// one when all is set), signed or not, and returns the removed entries.
// An id that names no entry is an error (ErrNotFound) and nothing is
// removed.
func Forget(f folder.Folder, st *userstate.State, ids []string, all bool) ([]Remembered, error) {
	path, err := rememberedPath(f, st)
	if err != nil {
		return nil, err
	}
	var gone []Remembered
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
		var kept []Remembered
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
