package store

import (
	"bytes"
	"log/slog"
	"path/filepath"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/internal/filestamp"
)

// Memo keeps the engine of one folder between the loads of a
// long-running process (the hook server answers every tool call and runs
// every allowed command of a session): a load whose files have not
// changed since the last one returns the same engine, whose rule
// indexes are then built already. It is safe for concurrent use.
//
// A file's version is its stamp (package filestamp), taken before the
// files are read: a change made while they are read shows in the next
// load, which reads them again. A load whose files changed within
// filestamp.Racy of it is not kept.
type Memo struct {
	log *slog.Logger // the engines' logger, for the life of the process

	mu    sync.Mutex
	last  *memoEntry // guarded by mu
	hits  int        // guarded by mu; for tests
	loads int        // guarded by mu; for tests
}

type memoEntry struct {
	root  string
	state string
	key   []byte
	stamp []filestamp.Stamp
	e     *policy.Engine
	warns []Warning
}

// NewMemo returns a memo whose engines log internal errors to log (nil
// discards): they outlive the load that built them.
func NewMemo(log *slog.Logger) *Memo { return &Memo{log: log} }

// Load is store.Load for f and st, reusing the last engine while its
// files stay as they were.
func (m *Memo) Load(f folder.Folder, st *userstate.State) (*policy.Engine, []Warning, error) {
	if m == nil || st == nil {
		return Load(f, st, m.logger())
	}
	now := time.Now()
	stamp := policyStamp(f, st)
	m.mu.Lock()
	if l := m.last; l != nil && l.root == f.Root && l.state == st.Dir && bytes.Equal(l.key, st.Key) && filestamp.Equal(l.stamp, stamp) {
		m.hits++
		m.mu.Unlock()
		return l.e, l.warns, nil
	}
	m.mu.Unlock()
	e, warns, err := Load(f, st, m.logger())
	if err != nil {
		return nil, warns, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loads++
	if filestamp.Settled(stamp, now) {
		m.last = &memoEntry{root: f.Root, state: st.Dir, key: bytes.Clone(st.Key), stamp: stamp, e: e, warns: warns}
	} else {
		m.last = nil
	}
	return e, warns, nil
}

func (m *Memo) logger() *slog.Logger {
	if m == nil {
		return nil
	}
	return m.log
}

// counts reports the loads that reused an engine and those that read the
// files (tests).
func (m *Memo) counts() (hits, loads int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.hits, m.loads
}

// policyStamp stamps every file a load reads: policy.yaml, and in the
// folder's per-user state the accepted record and copy, the signed cache
// and the remembered decisions.
func policyStamp(f folder.Folder, st *userstate.State) []filestamp.Stamp {
	dir := st.FolderPath(f.Root)
	return filestamp.All(f.Policy(), dir,
		filepath.Join(dir, acceptedRecordName), filepath.Join(dir, acceptedCopyName),
		filepath.Join(dir, cacheName), filepath.Join(dir, rememberedName))
}
