package live

import (
	"log/slog"
	"path/filepath"
	"sync"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// StoreFor opens the checkpoint store of the project at root in the
// per-user state (FolderDir/checkpoints): outside every project, hidden
// from the jail, so that neither a jailed command nor the jailed agent
// of `sandbox run` can read or rewrite what was kept.
func StoreFor(st *userstate.State, root string, log *slog.Logger) (*checkpoint.Store, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	dir, err := st.FolderDir(real)
	if err != nil {
		return nil, err
	}
	return checkpoint.Open(filepath.Join(dir, "checkpoints"), real, checkpoint.Options{Log: log})
}

// lazyStore opens the store on the first checkpoint: most calls keep
// nothing (a read, a build), and the hook starts once per call.
type lazyStore struct {
	st   *userstate.State
	root string
	log  *slog.Logger
	once sync.Once
	s    *checkpoint.Store
	err  error
}

func (l *lazyStore) Take(req checkpoint.Request) (*checkpoint.Checkpoint, error) {
	l.once.Do(func() { l.s, l.err = StoreFor(l.st, l.root, l.log) })
	if l.err != nil {
		return nil, l.err
	}
	return l.s.Take(req)
}
