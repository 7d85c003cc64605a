// Package store keeps, for each project folder, what a human decided
// about its policy, in the per-user state dir (outside the jail's reach)
// and signed with the per-user key: the accepted policy (a copy of its
// bytes and a signed record of their SHA-256, accepted.go), the signed
// compiled cache of it (cache.go, whose payload policy.EncodeCache writes)
// and the remembered "always" decisions (remembered.go). Load builds the
// engine (package connector/policy) that enforces them.
//
// A hook's load goes: Load (load.go) → readAccepted and readSmall
// (accepted.go) → decodeRecord (record.go) → verifyMAC (sign.go) →
// readCache (cache.go) → policy.DecodeCache → LoadRemembered
// (remembered.go) → policy.New.
package store

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Load builds the engine for folder f. It enforces the last policy a
// human accepted: policy.yaml when it is byte-for-byte that policy, else
// the accepted copy kept in the per-user state dir (a pending change, a
// broken file or a missing file is a warning, never a loosening). With no
// valid accepted record, only the built-in rules apply and everything
// else escalates. Remembered decisions are applied; bad ones are warned
// about and ignored. The error is for a state dir that cannot be used.
func Load(f folder.Folder, st *userstate.State, log *slog.Logger) (*policy.Engine, []Warning, error) {
	return LoadWith(f, st, policy.Options{Logger: log})
}

// LoadWith is Load with options (Remembered and StateDir are filled in).
func LoadWith(f folder.Folder, st *userstate.State, o policy.Options) (*policy.Engine, []Warning, error) {
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
	o.Status = status
	e, err := policy.New(f.Root, pol, o)
	if err != nil {
		return nil, warns, err
	}
	return e, warns, nil
}

func loadPolicy(f folder.Folder, st *userstate.State) (*policy.Policy, policy.Status, []Warning, error) {
	var warns []Warning
	current, cerr := ReadPolicyFile(f)
	if cerr != nil {
		warns = append(warns, Warning{WarnMissing, fmt.Sprintf("%s: %v", f.Policy(), cerr)})
	}
	accepted, sha, aerr := readAccepted(f, st)
	same := aerr == nil && current != nil && bytes.Equal(current, accepted)
	if errors.Is(aerr, ErrNotAccepted) {
		// One true message: with nothing accepted there is no "accepted
		// policy in force", so no pending-change warning beside it.
		return nil, policy.StatusNothingAccepted, append(warns, notAccepted(f, current)), nil
	}
	if current != nil && !same {
		warns = append(warns, validate(f, current)...)
	}
	switch {
	case errors.Is(aerr, ErrBadRecord):
		return nil, policy.StatusNothingAccepted, append(warns, Warning{WarnBadRecord, fmt.Sprintf(
			"%v: everything escalates until `sandbox policy accept`", aerr)}), nil
	case aerr != nil:
		return nil, policy.StatusNothingAccepted, warns, aerr
	}
	file := f.Policy()
	if !same {
		file += " (accepted copy)"
	}
	p, err := acceptedPolicy(f, st, file, accepted, sha)
	if err != nil {
		return nil, policy.StatusNothingAccepted, append(warns, Warning{WarnBadRecord, fmt.Sprintf(
			"the accepted policy no longer parses (%v): everything escalates", err)}), nil
	}
	if same {
		return p, policy.StatusAccepted, warns, nil
	}
	return p, policy.StatusPending, warns, nil
}

// validate reports a policy.yaml that differs from the accepted one: a
// pending change, or an invalid file (with file:line).
func validate(f folder.Folder, current []byte) []Warning {
	if _, err := policy.Parse(f.Policy(), current); err != nil {
		return []Warning{{WarnInvalid, fmt.Sprintf(
			"%v\n(the last accepted policy stays in force until a valid file is accepted)", err)}}
	}
	return []Warning{{WarnPending,
		"policy.yaml has changes that are not accepted yet; the accepted policy stays in force (`sandbox policy diff`, `sandbox policy accept`)"}}
}

// acceptedPolicy is the accepted policy from the signed cache, else
// parsed from its bytes (and cached for the next load).
func acceptedPolicy(f folder.Folder, st *userstate.State, file string, data []byte, sha string) (*policy.Policy, error) {
	dir, err := st.FolderDir(f.Root)
	if err != nil {
		return nil, err
	}
	if p := readCache(dir, st, f.Root, file, sha); p != nil {
		return p, nil
	}
	p, err := policy.Parse(file, data)
	if err != nil {
		return nil, err
	}
	if cache, err := policy.EncodeCache(p); err == nil {
		_ = writeCache(dir, st, f.Root, cache) // a failed cache only costs time
	}
	return p, nil
}

// NotAcceptedMessage is what every command says of a folder whose policy
// this user has not accepted on this machine (nor has a per-user state).
const NotAcceptedMessage = "no policy is accepted for this folder on this machine yet (a fresh clone or a new machine), " +
	"so everything escalates to a human: review and accept .sandbox/policy.yaml with `sandbox policy accept`"

// notAccepted is the one warning of a folder whose policy this user has
// never accepted on this machine: a teammate's fresh clone, or a new
// machine.
func notAccepted(f folder.Folder, current []byte) Warning {
	msg := NotAcceptedMessage
	if current != nil {
		if _, err := policy.Parse(f.Policy(), current); err != nil {
			msg += fmt.Sprintf(" (it is invalid now: %v)", err)
		}
	}
	return Warning{WarnNotAccepted, msg}
}
