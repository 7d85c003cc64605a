package audit

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// AnchorFile is the name of the anchored head in the per-folder state dir.
const AnchorFile = "audit-head.json"

// link is a point of the chain: a record's seq and chain hash. The zero
// link is the genesis: the first record has seq 1 and prev all zeros.
type link struct {
	seq  uint64
	hash [sha256.Size]byte
}

func (l link) head() Head { return Head{Seq: l.seq, Hash: hex.EncodeToString(l.hash[:])} }

// point is an anchored head: the record and where its line ends, so that
// an appender can check it and walk forward from it without a full scan.
type point struct {
	link
	file string // base name of the file holding the record
	end  int64  // offset just after the record's newline
}

// anchorDoc is the anchor file. Its HMAC binds it to this folder.
type anchorDoc struct {
	Seq  uint64 `json:"seq"`
	Hash string `json:"hash"`
	File string `json:"file"`
	End  int64  `json:"end"`
	HMAC string `json:"hmac"`
}

// anchorStore reads and writes one folder's anchored head.
type anchorStore struct {
	path string
	root string
	key  []byte
}

func newAnchorStore(st *userstate.State, root string) (*anchorStore, error) {
	if st == nil || len(st.Key) == 0 {
		return nil, ErrNoKey
	}
	dir, err := st.FolderDir(root)
	if err != nil {
		return nil, fmt.Errorf("audit anchor: %w", err)
	}
	return &anchorStore{path: filepath.Join(dir, AnchorFile), root: root, key: st.Key}, nil
}

func (a *anchorStore) mac(d anchorDoc) string {
	m := hmac.New(sha256.New, a.key)
	for _, s := range []string{"sandbox audit anchor v1", a.root, strconv.FormatUint(d.Seq, 10),
		d.Hash, d.File, strconv.FormatInt(d.End, 10)} {
		m.Write([]byte(s))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil))
}

// read returns the anchored head; ok is false when there is none yet.
func (a *anchorStore) read() (p point, ok bool, err error) {
	data, err := os.ReadFile(a.path)
	if errors.Is(err, fs.ErrNotExist) {
		return point{}, false, nil
	}
	if err != nil {
		return point{}, false, fmt.Errorf("audit anchor %s: %w", a.path, err)
	}
	var d anchorDoc
	if err := json.Unmarshal(data, &d); err != nil {
		return point{}, false, fmt.Errorf("%s: %w: %w", a.path, ErrBadAnchor, err)
	}
	if !hmac.Equal([]byte(d.HMAC), []byte(a.mac(d))) || d.Seq == 0 ||
		len(d.Hash) != hexLen || !decodeHex(p.hash[:], []byte(d.Hash)) {
		return point{}, false, fmt.Errorf("%s: %w", a.path, ErrBadAnchor)
	}
	p.seq, p.file, p.end = d.Seq, d.File, d.End
	return p, true, nil
}

// write replaces the anchored head atomically (tmp, fsync, rename).
func (a *anchorStore) write(p point) error {
	d := anchorDoc{Seq: p.seq, Hash: hex.EncodeToString(p.hash[:]), File: p.file, End: p.end}
	d.HMAC = a.mac(d)
	data, err := json.Marshal(d)
	if err != nil {
		return fmt.Errorf("audit anchor: %w", err)
	}
	if err := atomicfile.WriteFile(a.path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("audit anchor: %w", err)
	}
	return nil
}
