package checkpoint

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
)

// statKey is a file's identity as far as the stat cache is concerned.
type statKey struct {
	Size, Mtime, Ctime int64
	Ino                uint64
	Mode               uint32
}

// cacheEntry maps a path's statKey to the blob of its content.
type cacheEntry struct {
	key statKey
	id  ID
}

// statCache is the store's index of the project: path -> (stat, blob), so
// that a file unchanged since the last checkpoint is not read again. With
// it a 10,000-file work tree costs one lstat per file (BenchmarkCheckpoint10k).
type statCache struct {
	entries map[string]cacheEntry
	misses  int // entries set since the load
}

const cacheMagic = "sandbox-checkpoint-statcache-1\n"

// racyWindow: a file modified within this long before the cache is
// written may change again within the same timestamp tick without its
// stat changing (git's "racily clean" entries), so it is not cached.
const racyWindow = 2e9 // ns

func (s *Store) cachePath() string { return filepath.Join(s.dir, "statcache") }

// loadCache reads the cache; a missing or damaged one is empty (every
// file is then read again, which is only slower).
func (s *Store) loadCache() *statCache {
	c := &statCache{entries: map[string]cacheEntry{}}
	raw, err := os.ReadFile(s.cachePath())
	if err != nil || !bytes.HasPrefix(raw, []byte(cacheMagic)) {
		return c
	}
	const fixed = 2 + 8*4 + 4 + len(ID{})
	c.entries = make(map[string]cacheEntry, len(raw)/(fixed+24))
	names := string(raw) // one allocation for every path
	data := raw[len(cacheMagic):]
	for len(data) >= fixed {
		n := int(binary.LittleEndian.Uint16(data))
		if len(data) < fixed+n {
			break
		}
		var e cacheEntry
		off := len(raw) - len(data) + 2
		p := names[off : off+n]
		d := data[2+n:]
		e.key.Size = int64(binary.LittleEndian.Uint64(d))
		e.key.Mtime = int64(binary.LittleEndian.Uint64(d[8:]))
		e.key.Ctime = int64(binary.LittleEndian.Uint64(d[16:]))
		e.key.Ino = binary.LittleEndian.Uint64(d[24:])
		e.key.Mode = binary.LittleEndian.Uint32(d[32:])
		copy(e.id[:], d[36:])
		c.entries[p] = e
		data = d[36+len(e.id):]
	}
	return c
}

func (c *statCache) lookup(rel string, k statKey) (ID, bool) {
	e, ok := c.entries[rel]
	if !ok || e.key != k {
		return ID{}, false
	}
	return e.id, true
}

func (c *statCache) set(rel string, k statKey, id ID) {
	if e, ok := c.entries[rel]; ok && e.key == k && e.id == id {
		return
	}
	c.entries[rel] = cacheEntry{k, id}
	c.misses++
}

// saveCache writes the cache, leaving out racy entries, once enough of
// it changed: rewriting 10,000 entries costs more than reading again the
// few files an agent edits between two checkpoints.
func (s *Store) saveCache(c *statCache, nowNs int64) error {
	if c.misses == 0 || (c.misses < 16 && c.misses*100 < len(c.entries)) {
		return nil
	}
	buf := bytes.NewBufferString(cacheMagic)
	var fixed [8*4 + 4]byte
	for p, e := range c.entries {
		if len(p) > 0xffff || e.key.Mtime > nowNs-racyWindow || e.key.Ctime > nowNs-racyWindow {
			continue
		}
		buf.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(p))))
		buf.WriteString(p)
		binary.LittleEndian.PutUint64(fixed[0:], uint64(e.key.Size))
		binary.LittleEndian.PutUint64(fixed[8:], uint64(e.key.Mtime))
		binary.LittleEndian.PutUint64(fixed[16:], uint64(e.key.Ctime))
		binary.LittleEndian.PutUint64(fixed[24:], e.key.Ino)
		binary.LittleEndian.PutUint32(fixed[32:], e.key.Mode)
		buf.Write(fixed[:])
		buf.Write(e.id[:])
	}
	return s.writeNew(s.cachePath(), buf.Bytes())
}

// dropCache forgets every cached id (prune removed objects).
func (s *Store) dropCache() error {
	if err := os.Remove(s.cachePath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}
