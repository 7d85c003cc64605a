//go:build linux && cgo

package shims

// #cgo CFLAGS: -O2 -Wall
import "C" // fastpath_linux.c: the constructor that reads the entries written here

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The allow cache lets fastpath_linux.c exec the real tool before the Go
// runtime starts, for an argv the Go path allowed moments ago. An entry
// is a file in a private directory, $TMPDIR/sandbox-shims-UID (mode 0700,
// owned by the user; anything else disables the cache), named by the
// 64-bit FNV-1a hash of its content, which is the key: NUL-terminated
// strings
//
//	"sandbox-shim-allow/1", the policy cache's identity
//	"DEV:INO:SIZE:MTIME_SEC.MTIME_NSEC", the working directory (the
//	kernel's), $HOME, $XDG_STATE_HOME, the shim name, each argument
//
// An entry counts for allowTTL after it was written. The fast path runs
// only when $SANDBOX_SHIM_DIR names the shim directory (run mode sets it)
// and $SANDBOX_SHIM_NOFAST is empty.
//
// This is safe to cache because a shim's "allow" grants nothing the jail
// does not: it runs the command in the jail, which the jailed process
// could do without the shim. A forged, stale or colliding entry can only
// make a call run in the jail instead of being asked about; it cannot
// make anything run outside. A new accepted policy (a new cache file), a
// different directory, home or state dir, or any other argument misses.
const allowTTL = 10 * time.Minute

// maxAllowEntries bounds the cache directory; beyond it, entries are
// dropped.
const maxAllowEntries = 2048

// rememberAllow records that call (the shim name and its arguments) was
// allowed in cwd, for the fast path. Failures only cost speed.
func (s *site) rememberAllow(call []string) {
	if d := os.Getenv(EnvDir); d == "" || filepath.Clean(d) != s.dir || os.Getenv("SANDBOX_SHIM_NOFAST") != "" {
		return
	}
	key, ok := s.allowKey(call)
	if !ok {
		return
	}
	dir, ok := allowDir(true)
	if !ok {
		return
	}
	h := fnv.New64a()
	h.Write(key)
	path := filepath.Join(dir, fmt.Sprintf("%016x", h.Sum64()))
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := path + ".tmp-" + hex.EncodeToString(rnd[:])
	if err := os.WriteFile(tmp, key, 0o600); err != nil {
		return
	}
	if os.Rename(tmp, path) != nil {
		os.Remove(tmp)
	}
	if rnd[0]%32 == 0 {
		pruneAllow(dir)
	}
}

// allowKey is the entry content for call in the current directory.
func (s *site) allowKey(call []string) ([]byte, bool) {
	fi, err := os.Stat(CachePath(s.dir))
	if err != nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil, false
	}
	cwd, err := syscall.Getwd()
	if err != nil {
		return nil, false
	}
	if wd, err := os.Getwd(); err != nil || wd != cwd {
		return nil, false // the policy saw $PWD; the fast path sees the kernel's directory
	}
	id := fmt.Sprintf("%d:%d:%d:%d.%09d", st.Dev, st.Ino, st.Size, st.Mtim.Sec, st.Mtim.Nsec)
	parts := append([]string{"sandbox-shim-allow/1", id, cwd, os.Getenv("HOME"), os.Getenv("XDG_STATE_HOME")}, call...)
	var b strings.Builder
	for _, p := range parts {
		if strings.IndexByte(p, 0) >= 0 {
			return nil, false
		}
		b.WriteString(p)
		b.WriteByte(0)
	}
	return []byte(b.String()), b.Len() <= 16384
}

// allowDir returns the private cache directory, creating it if asked; ok
// is false when it is not a directory of mode 0700 owned by this user.
func allowDir(create bool) (string, bool) {
	dir := filepath.Join(os.TempDir(), "sandbox-shims-"+strconv.Itoa(os.Getuid()))
	if create {
		os.Mkdir(dir, 0o700)
	}
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 {
		return "", false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return dir, ok && int(st.Uid) == os.Getuid()
}

// pruneAllow removes expired entries, and all of them past the bound.
func pruneAllow(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(4 * maxAllowEntries)
	d.Close()
	all := len(names) > maxAllowEntries
	for _, n := range names {
		p := filepath.Join(dir, n)
		if fi, err := os.Lstat(p); all || err != nil || time.Since(fi.ModTime()) > allowTTL {
			os.Remove(p)
		}
	}
}
