package launcher

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/gitworktree"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// buildFS says what the jail may write, what stays read-only and what is
// hidden. The agent's own config dirs are writable but for what runs code
// (agentFS); its global config file is a per-run copy when the mount
// namespace allows it (g, set up by prepareGlobal).
func buildFS(o *Options, mountNS bool, g *globalCopy) jailspec.FS {
	root := o.Folder.Root
	home := homeOf(o)
	fs := jailspec.FS{
		Writable:      append([]string{root}, tempDirs()...),
		WritableHoles: []string{o.Folder.Tmp(), o.Folder.Pending()},
		SharedTmp:     o.SharedTmp,
	}
	lay := agentProfile(agentName(o)).layout(home, baseEnv(o))
	for _, w := range append(lay.Writable, o.Writable...) {
		fs.Writable = append(fs.Writable, expandHome(w, home))
	}
	for _, p := range append(append([]string{}, ProtectedPaths...), o.Protected...) {
		fs.ReadOnly = append(fs.ReadOnly, filepath.Join(root, p))
	}
	fs.Placeholders = map[string]string{}
	fs.PinStash = o.Folder.PinStash()
	for p, content := range protectedFiles {
		fs.Placeholders[filepath.Join(root, p)] = content
	}
	seedWorktreesDir(root)
	if wt, err := gitworktree.Find(root); err == nil {
		addWorktree(&fs, wt)
	} else if !errors.Is(err, gitworktree.ErrNotLinked) && o.Logger != nil {
		// the jail still runs; git fails in it as it would without a grant
		o.Logger.Debug("jail: the project's .git gitfile does not check out: no writes in the shared repository", "err", err)
	}
	// only the agent's names that exist (prepareAgent created the ones
	// that matter): a missing one would cost Landlock-only jails the
	// right to create files next to it
	fs.ReadOnly = append(fs.ReadOnly, existing(lay.ReadOnly)...)
	fs.ReadOnly = append(fs.ReadOnly, binaryDirs(o, fs.Writable)...)
	if lay.Global != "" {
		if g != nil && mountNS {
			fs.Substitutes = []jailspec.Substitute{{Path: g.orig, Source: g.copy}}
			if !inAny(g.orig, fs.Writable) {
				fs.Writable = append(fs.Writable, g.orig) // the copy, as bound there
			}
		} else {
			// without a copy the original stays read-only: the agent may
			// fail to save its state, but nothing it writes runs later
			fs.ReadOnly = append(fs.ReadOnly, lay.Global)
		}
	}
	fs.Hidden = hiddenPaths(o, home, fs.Writable)
	return fs
}

// homeOf is the jail's home directory: $HOME of its environment, else
// this process's.
func homeOf(o *Options) string {
	if h := envValue(baseEnv(o), "HOME"); filepath.IsAbs(h) {
		return filepath.Clean(h)
	}
	h, _ := os.UserHomeDir()
	return h
}

// tempDirs are $TMPDIR (or /tmp) and /var/tmp.
func tempDirs() []string {
	dirs := []string{filepath.Clean(os.TempDir())}
	for _, d := range []string{"/tmp", "/var/tmp"} {
		if d != dirs[0] {
			dirs = append(dirs, d)
		}
	}
	return dirs
}

func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return filepath.Clean(p)
}

// hiddenPaths are the per-user state dir, the sockets through which a
// jailed process could have something run outside the jail (the user's
// runtime dir with the D-Bus session bus, systemd --user and gpg-agent,
// the system bus, systemd's private socket, the container engines,
// ssh-agent), the well-known secrets of the home directory and the
// concrete paths of the read policy's deny and escalate rules. A hidden
// name that is a symbolic link hides its target too (hiding a link
// itself would hide nothing: $SSH_AUTH_SOCK is often a link into /tmp).
// Nothing that holds a writable tree is hidden.
func hiddenPaths(o *Options, home string, writable []string) []string {
	state := o.StateDir
	if state == "" {
		state, _ = userstate.DefaultDir()
	}
	cands := []string{state}
	cands = append(cands, envOf(o, "XDG_RUNTIME_DIR"), envOf(o, "SSH_AUTH_SOCK"),
		"/run/dbus", "/var/run/dbus", "/run/systemd/private",
		"/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman")
	if home != "" {
		for _, rel := range HomeSecrets {
			cands = append(cands, filepath.Join(home, rel))
		}
	}
	cands = append(cands, readRulePaths(o.HideReads, o.Folder.Root, home)...)
	var hidden []string
	seen := map[string]bool{}
	add := func(p string) {
		if filepath.IsAbs(p) && !seen[p] && !holdsAny(p, append(writable, o.Folder.Root)) {
			seen[p] = true
			hidden = append(hidden, p)
		}
	}
	looked := map[string]bool{} // the policy's read rules name the home secrets again
	for _, p := range cands {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		if looked[p] {
			continue
		}
		looked[p] = true
		fi, err := os.Lstat(p)
		if err != nil {
			continue // absent: nothing to hide, and the jail cannot create it in a place it cannot write
		}
		add(p)
		if fi.Mode()&os.ModeSymlink != 0 {
			if real, err := filepath.EvalSymlinks(p); err == nil {
				add(real)
			}
		}
	}
	return hidden
}

// holdsAny reports whether p is one of trees or holds one of them.
func holdsAny(p string, trees []string) bool {
	for _, t := range trees {
		if t == p || within(t, p) {
			return true
		}
	}
	return false
}

// inAny reports whether p is one of trees or lies inside one.
func inAny(p string, trees []string) bool {
	for _, t := range trees {
		if t == p || within(p, t) {
			return true
		}
	}
	return false
}

// within reports whether p lies strictly inside dir.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func envOf(o *Options, key string) string { return envValue(baseEnv(o), key) }

func baseEnv(o *Options) []string {
	if o.Env != nil {
		return o.Env
	}
	return os.Environ()
}
