package serve

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// entry is one pending request file as parsed, kept while the file is
// unchanged (same name, size, modification time and inode).
type entry struct {
	fi   os.FileInfo
	req  *queue.Request // nil: the file was bad or not pending any more
	view *RequestView
	js   json.RawMessage // view, encoded once
}

// pendingCache holds the parsed pending requests of one folder so that
// listing them does not read and parse every file each time: a scan reads
// only the files it has not seen as they are now.
type pendingCache struct {
	fs      *folderState
	entries map[string]*entry // by file name
}

func newPendingCache(fs *folderState) *pendingCache {
	return &pendingCache{fs: fs, entries: map[string]*entry{}}
}

// scan brings the cache up to date with pending/. It returns the requests
// that appeared, the ids that left, and whether a bad file was met (the
// caller has the queue quarantine it).
func (c *pendingCache) scan() (added []*entry, removed []string, bad bool) {
	names, err := readDir(c.fs.f.Pending())
	if err != nil {
		c.fs.s.log.Warn("cannot list pending requests", "folder", c.fs.f.Root, "err", err)
		return nil, nil, false
	}
	present := make(map[string]bool, len(names))
	for _, name := range names {
		present[name] = true
		e, fresh, isBad := c.look(name)
		bad = bad || isBad
		if fresh && e != nil && e.req != nil {
			added = append(added, e)
		}
	}
	for name, e := range c.entries {
		if !present[name] {
			delete(c.entries, name)
			if e.req != nil {
				removed = append(removed, e.req.ID)
			}
		}
	}
	return added, removed, bad
}

// look returns the entry of file name, reading it only when it changed.
func (c *pendingCache) look(name string) (e *entry, fresh, bad bool) {
	id, ok := strings.CutSuffix(name, ".json")
	if !ok || !queue.ValidID(id) {
		return nil, false, true
	}
	path := filepath.Join(c.fs.f.Pending(), name)
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, false, false
	}
	if old := c.entries[name]; old != nil && sameFile(old.fi, fi) {
		return old, false, false
	}
	req, state, err := c.fs.q.Load(id)
	if err != nil || state != queue.StatePending || req == nil {
		return nil, false, err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, queue.ErrNotFound)
	}
	e = &entry{fi: fi, req: req, view: c.fs.view(req, queue.StatePending)}
	e.js, _ = json.Marshal(e.view)
	if after, err := os.Lstat(path); err == nil && sameFile(fi, after) {
		c.entries[name] = e // unchanged while read: safe to keep
	}
	return e, true, false
}

func sameFile(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && os.SameFile(a, b)
}

// list returns the cached pending requests sorted by id (oldest first).
func (c *pendingCache) list() []*entry {
	out := make([]*entry, 0, len(c.entries))
	for _, e := range c.entries {
		if e.req != nil {
			out = append(out, e)
		}
	}
	sortEntries(out)
	return out
}

// view describes a request of this folder, with the proposed "always"
// pattern when remembered decisions are available.
func (fs *folderState) view(req *queue.Request, s queue.State) *RequestView {
	v := fs.tagView(viewRequest(fs.key, req, s))
	if s == queue.StatePending || s == queue.StateClaimed {
		v.Review = fs.src.Review(req)
		v.Headline = v.Review.Headline(3)
	}
	if p, err := fs.ap.Propose(req); err == nil {
		v.Pattern = display.EscapeLine(p)
	}
	return v
}

// readDir lists the names in dir, sorted.
func readDir(dir string) ([]string, error) {
	d, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sortStrings(names)
	return names, nil
}
