package launcher

import (
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/internal/filestamp"
	"github.com/sandbox-dev/sandbox/shims"
)

// BusMemo keeps, between the runs of one long-running process (the hook
// server runs every allowed command of a session), what each run's bus
// would otherwise do again: the folder's policy engine (store.Memo), and
// the shims' links and compiled policy cache, while the shims dir, the
// binary they link to and the cache are the versions the last run left
// (package filestamp). It is safe for concurrent use.
type BusMemo struct {
	// Policies keeps the engine; the hook's own loads may share it.
	Policies *store.Memo

	mu    sync.Mutex
	links *shimsDone // guarded by mu
	cache *shimsDone // guarded by mu
}

// shimsDone is what a run's bus left in the shims dir.
type shimsDone struct {
	key   string // the dir and the binary and names, or the policy's hash
	stamp []filestamp.Stamp
	at    time.Time
}

// NewBusMemo returns a memo whose engines log internal errors to log.
func NewBusMemo(log *slog.Logger) *BusMemo { return &BusMemo{Policies: store.NewMemo(log)} }

// current reports whether what d records is still there: the same key,
// the same versions, stamped when they had settled.
func (d *shimsDone) current(key string, stamp []filestamp.Stamp) bool {
	return d != nil && d.key == key && filestamp.Equal(d.stamp, stamp) && filestamp.Settled(d.stamp, d.at)
}

// linksStamp stamps the shims dir (a link added, removed or replaced
// changes it) and the binary the links lead to.
func linksStamp(dir, exe string) []filestamp.Stamp { return filestamp.All(dir, exe) }

func linksKey(dir, exe string, names []string) string {
	s := slices.Clone(names)
	slices.Sort(s)
	return dir + "\x00" + exe + "\x00" + strings.Join(s, "\x00")
}

// linksCurrent reports whether the shims of names linked to exe are in
// dir as the last install left them.
func (m *BusMemo) linksCurrent(dir, exe string, names []string) bool {
	if m == nil {
		return false
	}
	stamp := linksStamp(dir, exe)
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.links.current(linksKey(dir, exe, names), stamp)
}

// linksInstalled records an install that succeeded.
func (m *BusMemo) linksInstalled(dir, exe string, names []string) {
	if m == nil {
		return
	}
	at := time.Now()
	d := &shimsDone{key: linksKey(dir, exe, names), stamp: linksStamp(dir, exe), at: at}
	m.mu.Lock()
	m.links = d
	m.mu.Unlock()
}

// cacheCurrent reports whether the shims' compiled cache in dir is the
// one the last bus wrote (or found current) for the policy of hash.
func (m *BusMemo) cacheCurrent(dir, hash string) bool {
	if m == nil || hash == "" {
		return false
	}
	stamp := filestamp.All(shims.CachePath(dir))
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cache.current(dir+"\x00"+hash, stamp)
}

// cacheWritten records the cache of hash as current in dir.
func (m *BusMemo) cacheWritten(dir, hash string) {
	if m == nil || hash == "" {
		return
	}
	d := &shimsDone{key: dir + "\x00" + hash, stamp: filestamp.All(shims.CachePath(dir)), at: time.Now()}
	m.mu.Lock()
	m.cache = d
	m.mu.Unlock()
}
