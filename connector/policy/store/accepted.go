package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// Files in the per-folder state directory.
const (
	acceptedCopyName   = "accepted-policy.yaml"
	acceptedRecordName = "accepted-policy.json"
	acceptedDomain     = "sandbox accepted-policy v1"
)

// acceptedRecord says which policy bytes a human accepted for a folder.
type acceptedRecord struct {
	Root       string    `json:"root"`
	SHA256     string    `json:"sha256"`
	AcceptedAt time.Time `json:"accepted_at"`
	MAC        string    `json:"mac"`
}

func (r *acceptedRecord) fields() []string {
	return []string{r.Root, r.SHA256, r.AcceptedAt.UTC().Format(time.RFC3339Nano)}
}

// Accept records data as the policy a human accepted for folder f: a copy
// of the bytes and a record of their SHA-256, signed with the per-user
// key, both in the per-folder state dir (outside the jail's reach). data
// must be a valid policy; an invalid one is refused with file:line.
func Accept(f folder.Folder, st *userstate.State, data []byte) error {
	p, err := policy.Parse(f.Policy(), data)
	if err != nil {
		return err
	}
	cache, err := policy.EncodeCache(p)
	if err != nil {
		cache = nil // a missing cache only costs time
	}
	return accept(f, st, data, cache)
}

// AcceptFrom records for f the policy accepted for folder from, whose
// bytes are data (an agent's worktree gets its repository's): from's
// compiled cache, when it verifies and is of these bytes, is signed again
// for f instead of parsing data once more. Without one it is Accept.
func AcceptFrom(from, f folder.Folder, st *userstate.State, data []byte) error {
	dir, err := st.FolderDir(from.Root)
	if err != nil {
		return err
	}
	cache := cachePayload(dir, st, from.Root, sha256Hex(data))
	if cache == nil {
		return Accept(f, st, data)
	}
	return accept(f, st, data, cache)
}

// accept writes the accepted copy and its record, then the compiled
// cache (nil: none).
func accept(f folder.Folder, st *userstate.State, data, cache []byte) error {
	dir, err := st.FolderDir(f.Root)
	if err != nil {
		return err
	}
	rec := &acceptedRecord{Root: f.Root, SHA256: sha256Hex(data), AcceptedAt: time.Now().UTC()}
	rec.MAC = mac(st.Key, acceptedDomain, rec.fields()...)
	js, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("accept policy: %w", err)
	}
	// The copy first, the record last: the record is the commit point.
	if err := atomicfile.WriteFile(filepath.Join(dir, acceptedCopyName), data, 0o600); err != nil {
		return fmt.Errorf("accept policy: %w", err)
	}
	if err := atomicfile.WriteFile(filepath.Join(dir, acceptedRecordName), append(js, '\n'), 0o600); err != nil {
		return fmt.Errorf("accept policy: %w", err)
	}
	if cache != nil {
		_ = writeCache(dir, st, f.Root, cache) // a failed cache only costs time
	}
	return nil
}

// Accepted returns the bytes of the policy last accepted for f. The error
// wraps ErrNotAccepted when there is no record and ErrBadRecord when the
// record or its copy fails verification.
func Accepted(f folder.Folder, st *userstate.State) ([]byte, error) {
	data, _, err := readAccepted(f, st)
	return data, err
}

// readAccepted is Accepted, also returning the bytes' SHA-256 (hex), which it
// has checked against the signed record.
func readAccepted(f folder.Folder, st *userstate.State) ([]byte, string, error) {
	dir, err := st.FolderDir(f.Root)
	if err != nil {
		return nil, "", err
	}
	js, err := readSmall(filepath.Join(dir, acceptedRecordName), 1<<16)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("%s: %w", f.Root, ErrNotAccepted)
	}
	if err != nil {
		return nil, "", err
	}
	rec, err := decodeRecord(js)
	if err != nil {
		return nil, "", fmt.Errorf("accepted policy record: %w: %v", ErrBadRecord, err)
	}
	if rec.Root != f.Root || !verifyMAC(st.Key, rec.MAC, acceptedDomain, rec.fields()...) {
		return nil, "", fmt.Errorf("accepted policy record: %w: bad signature", ErrBadRecord)
	}
	data, err := readSmall(filepath.Join(dir, acceptedCopyName), policy.MaxPolicySize)
	if err != nil {
		return nil, "", fmt.Errorf("accepted policy copy: %w: %w", ErrBadRecord, err)
	}
	if sha256Hex(data) != rec.SHA256 {
		return nil, "", fmt.Errorf("accepted policy copy: %w: its hash does not match the record", ErrBadRecord)
	}
	return data, rec.SHA256, nil
}

// Pending compares the folder's policy.yaml with the accepted policy.
// current is nil when policy.yaml is missing, accepted is nil when none
// was accepted (or its record is bad, which is then the error); changed
// says whether the file differs from what is enforced.
func Pending(f folder.Folder, st *userstate.State) (current, accepted []byte, changed bool, err error) {
	current, cerr := ReadPolicyFile(f)
	if cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
		return nil, nil, false, cerr
	}
	accepted, err = Accepted(f, st)
	if errors.Is(err, ErrNotAccepted) {
		err = nil
	}
	changed = accepted == nil || current == nil || sha256Hex(current) != sha256Hex(accepted)
	return current, accepted, changed, err
}

// ReadPolicyFile reads .sandbox/policy.yaml: a regular file (not a link)
// of at most policy.MaxPolicySize bytes.
func ReadPolicyFile(f folder.Folder) ([]byte, error) {
	return readSmall(f.Policy(), policy.MaxPolicySize)
}

// readSmall reads a regular, non-link file of at most limit bytes and
// checks that the file opened is the one inspected.
func readSmall(path string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	fh, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err != nil || !os.SameFile(fi, st) {
		return nil, fmt.Errorf("%s: changed while being read", path)
	}
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+512))
	if _, err := buf.ReadFrom(io.LimitReader(fh, limit+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}
