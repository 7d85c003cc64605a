package approver

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// A gate is the deny-wins arbiter of one claimed request. The approver
// that claimed a request creates its gate ("start") just before it runs
// anything; a deny that finds the request already claimed creates the gate
// ("deny") instead, and the approver then finds it taken and does not run.
// Creation is a hard link of a fully written temporary file, so exactly one
// side wins and no partial gate is ever visible. A gate grants nothing: a
// forged "start" only makes the approver refuse (fail closed), a forged
// "deny" only denies.
const (
	gateStart = "start"
	gateDeny  = "deny"
	gateMax   = 16 << 10
)

var idPattern = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

type gateRecord struct {
	Action  string    `json:"action"`
	User    string    `json:"user"`
	Surface string    `json:"surface"`
	Reason  string    `json:"reason,omitempty"`
	At      time.Time `json:"at"`
}

type gates struct{ dir string }

func gatesOf(f folder.Folder) gates {
	return gates{dir: filepath.Join(f.Escalations(), "gates")}
}

func (g gates) path(id string) string { return filepath.Join(g.dir, id+".gate") }

// create makes the gate of id; won is false when it already existed.
func (g gates) create(id string, rec gateRecord) (won bool, err error) {
	if !idPattern.MatchString(id) {
		return false, fmt.Errorf("gate %q: %w", id, ErrBadID)
	}
	if err := os.MkdirAll(g.dir, 0o700); err != nil {
		return false, fmt.Errorf("gate %s: %w", id, err)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return false, fmt.Errorf("gate %s: %w", id, err)
	}
	tmp, err := writeTemp(g.dir, data)
	if err != nil {
		return false, fmt.Errorf("gate %s: %w", id, err)
	}
	defer os.Remove(tmp)
	err = os.Link(tmp, g.path(id))
	if errors.Is(err, os.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("gate %s: %w", id, err)
	}
	return true, nil
}

func writeTemp(dir string, data []byte) (name string, err error) {
	f, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return "", err
	}
	defer func() {
		if err != nil {
			os.Remove(f.Name())
		}
	}()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return f.Name(), err
}

// read returns the gate of id. A gate that is not a small regular file or
// does not parse reads as a deny by nobody: fail closed.
func (g gates) read(id string) (gateRecord, error) {
	data, err := readSmallFile(g.path(id), gateMax)
	if errors.Is(err, os.ErrNotExist) {
		return gateRecord{}, err
	}
	var rec gateRecord
	if err != nil || json.Unmarshal(data, &rec) != nil || (rec.Action != gateStart && rec.Action != gateDeny) {
		return gateRecord{Action: gateDeny, Reason: "unreadable gate file"}, nil
	}
	return rec, nil
}

func (g gates) remove(id string) {
	if idPattern.MatchString(id) {
		os.Remove(g.path(id))
	}
}

// readSmallFile reads a regular file without following a link at path and
// refuses files larger than limit.
func readSmallFile(path string, limit int64) ([]byte, error) {
	before, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	after, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !os.SameFile(before, after) {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %w", path, ErrTooLarge)
	}
	return data, nil
}
