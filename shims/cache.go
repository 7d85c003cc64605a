package shims

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// cacheName is the compiled policy in the shim directory. The jail can
// read the shim directory but not write it (it is under .sandbox/); it
// cannot read the per-user state dir where the accepted policy lives.
const cacheName = ".policy-cache"

// maxCache bounds the cache a shim reads.
const maxCache = 4 << 20

// CachePath is the compiled-policy cache of the shims in dir.
func CachePath(dir string) string { return filepath.Join(dir, cacheName) }

// WriteCache writes p (the accepted policy; nil when nothing is accepted)
// compiled for the shims in dir. It is keyed by the policy's hash:
// rewriting an unchanged policy changes nothing.
func WriteCache(dir string, p *policy.Policy) error {
	if p == nil {
		p = &policy.Policy{}
	}
	data := policy.EncodeCompiled(p)
	if old, err := os.ReadFile(CachePath(dir)); err == nil && string(old) == string(data) {
		return nil
	}
	// a fresh clone's .sandbox/ has no shims directory yet: the run's bus
	// writes the cache before it links the shims
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("shim policy cache: %w", err)
	}
	// derived from the accepted policy, and written again by the next run
	// when missing or stale: no sync (a bad cache makes the shims escalate)
	if err := atomicfile.Replace(CachePath(dir), data, 0o644); err != nil {
		return fmt.Errorf("shim policy cache: %w", err)
	}
	return nil
}

// loadEngine builds the policy engine of the project at root from the
// cache in dir. It does not verify the accepted-policy signature (the
// shim cannot reach the key): a shim's "allow" only lets a command run in
// the jail, which the jailed process could do without the shim.
func loadEngine(dir, root string) (*policy.Engine, error) {
	f, err := os.Open(CachePath(dir))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPolicy, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxCache+1))
	if err != nil || len(data) > maxCache {
		return nil, fmt.Errorf("%w: unreadable or too large", ErrNoPolicy)
	}
	p, err := policy.DecodeCompiled(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoPolicy, err)
	}
	return policy.New(root, p, policy.Options{})
}
