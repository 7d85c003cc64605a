package launcher

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// buildFS says what the jail may write, what stays read-only and what is
// hidden.
func buildFS(o *Options) jailspec.FS {
	root := o.Folder.Root
	home, _ := os.UserHomeDir()
	fs := jailspec.FS{
		Writable:      append([]string{root}, tempDirs()...),
		WritableHoles: []string{o.Folder.Tmp(), o.Folder.Pending()},
	}
	for _, w := range append(AgentDirs(agentName(o), home), o.Writable...) {
		fs.Writable = append(fs.Writable, expandHome(w, home))
	}
	for _, p := range append(append([]string{}, ProtectedPaths...), o.Protected...) {
		fs.ReadOnly = append(fs.ReadOnly, filepath.Join(root, p))
	}
	fs.Placeholders = map[string]string{}
	for p, content := range protectedFiles {
		fs.Placeholders[filepath.Join(root, p)] = content
	}
	fs.Hidden = hiddenPaths(o)
	return fs
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

// hiddenPaths are the per-user state dir and the sockets through which a
// jailed process could have something run outside the jail: the user's
// runtime dir (D-Bus session bus, systemd --user, gpg-agent), the system
// bus and systemd's private socket, the container engines and ssh-agent.
func hiddenPaths(o *Options) []string {
	state := o.StateDir
	if state == "" {
		state, _ = userstate.DefaultDir()
	}
	hidden := []string{}
	if state != "" {
		hidden = append(hidden, state)
	}
	for _, p := range []string{
		envOf(o, "XDG_RUNTIME_DIR"), envOf(o, "SSH_AUTH_SOCK"),
		"/run/dbus", "/var/run/dbus", "/run/systemd/private",
		"/run/docker.sock", "/var/run/docker.sock", "/run/containerd", "/run/podman",
	} {
		if filepath.IsAbs(p) {
			hidden = append(hidden, filepath.Clean(p))
		}
	}
	return hidden
}

func envOf(o *Options, key string) string { return envValue(baseEnv(o), key) }

func baseEnv(o *Options) []string {
	if o.Env != nil {
		return o.Env
	}
	return os.Environ()
}
