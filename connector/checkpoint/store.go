// Package checkpoint keeps the files an allowed tool call is about to
// delete or overwrite, so that "allowed" never means "lost": before an
// allowed rm, mv, sed -i, truncating redirection, git checkout/restore/
// reset/clean, ... and before each Write or Edit, the affected paths (a
// directory with its whole tree) are stored, and `sandbox restore
// --checkpoint ID` brings them back byte for byte, modes included.
//
// The store is a content-addressed object store of our own in git's
// format (zlib'd blobs and trees named by SHA-256, written once), so that
// `git --git-dir=STORE cat-file -p ID` can read it; it never touches the
// project's .git, refs, index or stash. Each checkpoint is a small JSON
// record naming its tree. A stat cache (path -> size, mtime, ctime,
// inode, mode -> blob) like git's index means that an unchanged file is
// not read again: a 10,000-file work tree with one changed file costs
// 10,000 lstats and one read (BenchmarkCheckpoint10k).
//
// The store lives in the per-user state directory, which neither the
// jail nor a jailed command can read or write.
package checkpoint

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Defaults. A checkpoint reads at most MaxReadBytes of files that the
// stat cache does not know (a first checkpoint of a large work tree); a
// file over MaxFileSize is recorded as not kept. Prune keeps checkpoints
// for MaxAge and the store under MaxStoreBytes, dropping the oldest.
const (
	DefaultMaxFileSize   = 64 << 20
	DefaultMaxReadBytes  = 256 << 20
	DefaultMaxFiles      = 100_000
	DefaultMaxAge        = 7 * 24 * time.Hour
	DefaultMaxStoreBytes = 1 << 30
	// maxNotKeptListed bounds the paths listed as not kept in one record
	// (the count is always exact).
	maxNotKeptListed = 100
)

// Options tune a store; zero fields take the defaults.
type Options struct {
	MaxFileSize   int64
	MaxReadBytes  int64
	MaxFiles      int
	MaxAge        time.Duration
	MaxStoreBytes int64
	// PruneEvery is how often Take prunes (default an hour).
	PruneEvery time.Duration
	Log        *slog.Logger
	Now        func() time.Time
}

func (o *Options) fill() {
	def := func(v *int64, d int64) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxFileSize, DefaultMaxFileSize)
	def(&o.MaxReadBytes, DefaultMaxReadBytes)
	def(&o.MaxStoreBytes, DefaultMaxStoreBytes)
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.MaxAge <= 0 {
		o.MaxAge = DefaultMaxAge
	}
	if o.PruneEvery <= 0 {
		o.PruneEvery = time.Hour
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
}

// Store is the checkpoints of one project folder.
type Store struct {
	dir  string // the store: objects/, records/, statcache, HEAD, config
	root string // the project root, absolute and symlink-resolved
	opts Options
}

// Open returns the store in dir for the project at root (resolved here);
// it creates nothing until a checkpoint is taken.
func Open(dir, root string, opts Options) (*Store, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: project root: %w", err)
	}
	opts.fill()
	return &Store{dir: dir, root: real, opts: opts}, nil
}

// Dir is where the store lives.
func (s *Store) Dir() string { return s.dir }

// Root is the project the store keeps files of.
func (s *Store) Root() string { return s.root }

// gitFiles make the store readable by git (sha256 object format) without
// any ref: nothing in it is a branch, and git's gc is never run on it.
var gitFiles = map[string]string{
	"HEAD":   "ref: refs/heads/none\n",
	"config": "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n",
	"README": "sandbox checkpoints: objects in git's sha256 format, one JSON record per checkpoint in records/.\nRead an object with: git --git-dir=. cat-file -p ID\n",
}

// init creates the store's layout once.
func (s *Store) init() error {
	if _, err := os.Lstat(filepath.Join(s.dir, "config")); err == nil {
		return nil
	}
	for _, d := range []string{s.dir, filepath.Join(s.dir, "objects"), filepath.Join(s.dir, "refs"), s.recordsDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("checkpoint: %w", err)
		}
	}
	for name, content := range gitFiles {
		if err := s.writeNew(filepath.Join(s.dir, name), []byte(content)); err != nil {
			return err
		}
	}
	return nil
}

// newID is a checkpoint id: its UTC time, sortable, and 4 random bytes.
func newID(t time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return t.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}
