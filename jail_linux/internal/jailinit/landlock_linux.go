//go:build linux

package jailinit

import (
	"fmt"
	"os"
	"path"
	"slices"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Access rights, before masking with what the kernel's ABI knows.
const (
	rRead  = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	rWrite = ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo |
		ll.AccessFSMakeSym | ll.AccessFSRefer | ll.AccessFSTruncate | ll.AccessFSIoctlDev |
		ll.AccessFSResolveUnix
	rFile = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile |
		ll.AccessFSTruncate | ll.AccessFSIoctlDev
	rDevice = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSIoctlDev | ll.AccessFSTruncate
)

// abiFS is the set of file-system rights each ABI handles; abiFS[0] is
// empty. Handling exactly what the kernel knows (instead of go-landlock's
// best effort) keeps a "refer" grant from turning the whole ruleset into
// nothing on ABI 1.
func abiFS(abi int) uint64 {
	set := uint64(1)<<13 - 1 // ABI 1: execute .. make_sym
	for _, step := range []struct {
		abi  int
		bits uint64
	}{{2, ll.AccessFSRefer}, {3, ll.AccessFSTruncate}, {5, ll.AccessFSIoctlDev}, {9, ll.AccessFSResolveUnix}} {
		if abi >= step.abi {
			set |= step.bits
		}
	}
	if abi < 1 {
		return 0
	}
	return set
}

// landlockConfig is the ruleset for cfg on a kernel with ABI abi.
func landlockConfig(cfg *Config, abi int) landlock.Config {
	c := landlock.Config{HandledAccessFS: landlock.AccessFSSet(abiFS(abi))}
	if !cfg.NetNS && !cfg.NetOpen && abi >= 4 {
		// connect only: binding a listener reaches nothing outside
		net := uint64(ll.AccessNetConnectTCP)
		if abi >= 10 {
			net |= ll.AccessNetConnectSendUDP
		}
		c.HandledAccessNet = landlock.AccessNetSet(net)
	}
	if abi >= 6 {
		c.Scoped = landlock.ScopedSet(ll.ScopeAbstractUnixSocket | ll.ScopeSignal)
	}
	return c
}

// landlockRules lists the grants. Reads (and executes) everywhere except
// /dev and, without a mount namespace, the hidden trees; writes in the
// writable trees minus the pinned names that are symbolic links and,
// without a mount namespace, the read-only paths and the hidden trees
// (with one, read-only binds and tmpfs do that). TCP
// listeners may bind any port, but connect reaches only the proxy. A
// grant in a tree of nl names the tree's open directory.
func landlockRules(cfg *Config, handled uint64, nl noLinks) []landlock.Rule {
	noRead := []string{"/dev"}
	noWrite := slices.Clone(cfg.pinnedLinks) // a link cannot be a mount point (see pinner)
	if !cfg.MountNS {
		noRead = append(noRead, cfg.Hidden...)
		noWrite = append(append(noWrite, cfg.ReadOnly...), cfg.Hidden...)
	}
	var g grants
	g.carve("/", noRead, rRead, ll.AccessFSReadDir)
	g.devices()
	for _, w := range cfg.Writable {
		g.carve(w, noWrite, rRead|rWrite, 0)
	}
	for _, l := range cfg.pinnedLinks {
		// the link's directory: entries may be created and written, none
		// removed, renamed or replaced (the read-only binds, not Landlock,
		// keep what lies below it; pinnedLinks is set with them alone)
		g.add(path.Dir(l), rRead|rWrite&^(ll.AccessFSRemoveFile|ll.AccessFSRemoveDir))
	}
	if !cfg.MountNS {
		for _, h := range cfg.Holes {
			g.add(h, rRead|rWrite)
		}
	}
	return g.rules(handled, cfg, nl)
}

// grant is one path-beneath rule.
type grant struct {
	path   string
	access uint64
	dir    bool
}

type grants []grant

// add grants access on path if it exists; a file gets file rights only.
func (g *grants) add(path string, access uint64) {
	fi, err := os.Stat(path)
	if err != nil {
		return
	}
	if !fi.IsDir() {
		access &= rFile
	}
	*g = append(*g, grant{path: path, access: access, dir: fi.IsDir()})
}

// devices grants the harmless devices and listing /dev, never disks.
func (g *grants) devices() {
	g.add("/dev", ll.AccessFSReadDir)
	for _, d := range []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
		"/dev/urandom", "/dev/tty", "/dev/ptmx"} {
		g.add(d, rDevice)
	}
	g.add("/dev/pts", rRead|rDevice)
	g.add("/dev/shm", rRead|rWrite)
}

// rules turns the grants into go-landlock rules within the handled set.
func (g grants) rules(handled uint64, cfg *Config, nl noLinks) []landlock.Rule {
	var out []landlock.Rule
	for _, gr := range g {
		if a := gr.access & handled; a != 0 {
			// a path that vanished since it was listed (another process's
			// temp dir) grants nothing and is no error
			out = append(out, landlock.PathAccess(landlock.AccessFSSet(a), nl.rewrite(gr.path)).IgnoreIfMissing())
		}
	}
	if !cfg.NetNS && !cfg.NetOpen && cfg.ProxyPort > 0 {
		out = append(out, landlock.ConnectTCP(uint16(cfg.ProxyPort)))
	}
	return out
}

// applyLandlock enforces the ruleset on the calling (locked) thread;
// no_new_privs must be set.
func applyLandlock(cfg *Config, abi int) error {
	if abi < 1 {
		return fmt.Errorf("%w: Landlock is not available", ErrLayer)
	}
	c := landlockConfig(cfg, abi)
	nl, err := openNoLinks(cfg.NoLinks)
	if err != nil {
		return err
	}
	defer nl.close()
	rules := landlockRules(cfg, uint64(c.HandledAccessFS), nl)
	fd, flags, err := c.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock ruleset: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("bug: landlock ruleset is empty")
	}
	defer unix.Close(fd)
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}
