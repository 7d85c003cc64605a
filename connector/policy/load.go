package policy

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Load builds the engine for folder f. It enforces the last policy a
// human accepted: policy.yaml when it is byte-for-byte that policy, else
// the accepted copy kept in the per-user state dir (a pending change, a
// broken file or a missing file is a warning, never a loosening). With no
// valid accepted record, only the built-in rules apply and everything
// else escalates. Remembered decisions are applied; bad ones are warned
// about and ignored. The error is for a state dir that cannot be used.
func Load(f folder.Folder, st *userstate.State, log *slog.Logger) (*Engine, []Warning, error) {
	return LoadWith(f, st, Options{Logger: log})
}

// LoadWith is Load with options (Remembered and StateDir are filled in).
func LoadWith(f folder.Folder, st *userstate.State, o Options) (*Engine, []Warning, error) {
	if st == nil {
		return nil, nil, fmt.Errorf("policy: %w: no per-user state", ErrNotAccepted)
	}
	pol, status, warns, err := loadPolicy(f, st)
	if err != nil {
		return nil, warns, err
	}
	rem, rw := LoadRemembered(f, st)
	warns = append(warns, rw...)
	o.Remembered = append(o.Remembered, rem...)
	if o.StateDir == "" {
		o.StateDir = st.Dir
	}
	e, err := New(f.Root, pol, o)
	if err != nil {
		return nil, warns, err
	}
	e.status = status
	return e, warns, nil
}

func loadPolicy(f folder.Folder, st *userstate.State) (*Policy, Status, []Warning, error) {
	var warns []Warning
	current, cerr := ReadPolicyFile(f)
	var curPol *Policy
	if cerr != nil {
		warns = append(warns, Warning{WarnMissing, fmt.Sprintf("%s: %v", f.Policy(), cerr)})
	} else if p, err := Parse(f.Policy(), current); err != nil {
		warns = append(warns, Warning{WarnInvalid, fmt.Sprintf(
			"%v\n(the last accepted policy stays in force until a valid file is accepted)", err)})
	} else {
		curPol = p
	}
	accepted, aerr := Accepted(f, st)
	switch {
	case errors.Is(aerr, ErrNotAccepted):
		return nil, StatusNothingAccepted, append(warns, Warning{WarnNotAccepted,
			"no policy has been accepted for this folder: everything escalates until `sandbox policy accept`"}), nil
	case errors.Is(aerr, ErrBadRecord):
		return nil, StatusNothingAccepted, append(warns, Warning{WarnBadRecord, fmt.Sprintf(
			"%v: everything escalates until `sandbox policy accept`", aerr)}), nil
	case aerr != nil:
		return nil, StatusNothingAccepted, warns, aerr
	}
	if curPol != nil && bytes.Equal(current, accepted) {
		return curPol, StatusAccepted, warns, nil
	}
	accPol, err := Parse(f.Policy()+" (accepted copy)", accepted)
	if err != nil {
		return nil, StatusNothingAccepted, append(warns, Warning{WarnBadRecord, fmt.Sprintf(
			"the accepted policy no longer parses (%v): everything escalates", err)}), nil
	}
	if curPol != nil {
		warns = append(warns, Warning{WarnPending,
			"policy.yaml has changes that are not accepted yet; the accepted policy stays in force (`sandbox policy diff`, `sandbox policy accept`)"})
	}
	return accPol, StatusPending, warns, nil
}
