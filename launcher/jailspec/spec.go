// Package jailspec holds the plain data that the launcher hands to an OS
// jail (jail_linux, jail_windows) and the answers it gets back: what to
// start and how to confine it (Spec), what the machine can enforce
// (Report), and the running jail (Process). It imports nothing of ours, so
// that the jails can implement the launcher's Jail interface without
// importing the launcher.
package jailspec

import (
	"io"
	"log/slog"
)

// Spec is one jailed command, fully resolved by the launcher: absolute
// paths, the complete environment, and the layers to enforce. A jail
// applies exactly what Enforce asks and fails closed when it cannot.
type Spec struct {
	Argv []string // CMD and its arguments; Argv[0] is looked up on Env's PATH inside the jail
	// Direct, when set, is the one program a shell Argv would only have
	// started (shell.SimpleCommand): the jail starts it instead of the
	// shell when Direct[0] is found on the jail's PATH and Env leaves the
	// shell nothing of its own to do (no exported function of that name,
	// no BASH_ENV or shell options), else it starts Argv.
	Direct []string
	Env    []string // the complete environment of CMD
	Dir    string   // working directory of CMD (absolute)

	Stdin  io.Reader // nil: the null device
	Stdout io.Writer // nil: the null device
	Stderr io.Writer // nil: the null device

	FS      FS
	Net     Net
	Limits  Limits
	Enforce Enforce

	// Logger receives debug lines about the set-up; nil discards them.
	Logger *slog.Logger
	// Ended, when set, is called once the command has ended and nothing
	// of the jail runs any more but its init, which holds none of the
	// command's streams: before the jail's teardown (the init's exit, the
	// cgroup, the pins), which Process.Wait still waits for. It is not
	// called when the jail cannot tell (no pid namespace of its own) or
	// its init died first.
	Ended func(ExitStatus)

	// Complete, when set, finishes the spec (Env, FS) and is called by a
	// jail that starts its init first and configures it afterwards, so
	// that the launcher's own preparation overlaps the init's start-up.
	// An error aborts the start. A jail that does not do that (see the
	// launcher's Jail interface) is handed a spec already complete.
	Complete func(*Spec) error
}

// FS says what the jail may read and write. Everything not hidden is
// readable; only the Writable trees are writable, minus ReadOnly.
type FS struct {
	// Writable lists directory trees (and single files) the jail may
	// write: the project, the temp dir, the agent's own config dirs. A
	// path reached through a symbolic link that lies in a writable tree
	// (or a shared scratch dir) is refused: an earlier jail could have
	// planted it to widen this one.
	//
	// With MountNS the jail also gets a fresh tmpfs over /tmp, /var/tmp
	// and /dev/shm (writable trees inside them are carried over; $TMPDIR
	// inside them starts empty), and every user's runtime dir, screen's
	// and tmux's socket dirs and the sockets under /run are hidden: a
	// pathname socket leads to a program outside the jail.
	Writable []string
	// NoLinks lists trees of Writable that must be reached without any
	// symbolic link, not even one of the system's: the shared
	// repository's objects, refs and worktree dir of a jail rooted in a
	// linked git worktree, which a jail of the main worktree can replace
	// with a link. The jail grants each as the directory it opened
	// without following links just before it grants, and fails to start
	// when one is a link by then.
	NoLinks []string
	// SharedTmp keeps the host's own /tmp and /var/tmp (writable where
	// Writable says so; /dev/shm stays private), for a jail that is one
	// command among the agent's unjailed ones (connector mode): a file
	// the agent wrote in /tmp must be there for the next command. What
	// leads out is hidden instead, as found when the jail starts: every
	// pathname socket in them down to three levels (a bounded number of
	// entries, shallowest first) and the well-known socket directories
	// (tmux-*, .X11-unix, ssh-*, screen, ...) whole. A socket created
	// there after the jail started is not hidden.
	SharedTmp bool
	// ReadOnly lists paths inside Writable trees that stay read-only:
	// the project's .sandbox/, .git/hooks, agent configuration files.
	// With MountNS each is pinned whether it exists, is a symbolic link
	// or is missing: nothing in the jail can create, replace, rename or
	// remove it or the directories on the way to it. A missing one gets a
	// placeholder for the run (an empty directory, or the file named in
	// Placeholders), created by the jail's supervisor and removed when
	// the jail ends; a symbolic link cannot be a mount point, so nothing
	// in the directory holding it can be removed or renamed (Landlock). Without
	// MountNS, Landlock alone denies writes to them and to the
	// directories on the way.
	ReadOnly []string
	// Placeholders gives, for ReadOnly paths that name files, the
	// content of the file that stands in for a missing one (a placeholder
	// is otherwise an empty directory). Tools that read the name during
	// the run then see a valid, empty configuration.
	Placeholders map[string]string
	// PinStash is a directory out of every jail's reach, on the writable
	// trees' file system (the project's .sandbox/pins; for an agent's
	// worktree MAIN's, which all of them share), where placeholders
	// wait between runs instead of being removed and made again: an empty
	// directory made and removed costs 0.1-1 ms on ext4, moving one in and
	// out two renames of 10-20 µs. Empty: none.
	PinStash string
	// WritableHoles lists directories inside ReadOnly that stay writable
	// (.sandbox/escalations/tmp and pending). Holes that share a parent
	// are kept on one mount so that rename(2) between them works.
	WritableHoles []string
	// Hidden lists trees the jail may neither read nor write (the
	// per-user state dir).
	Hidden []string
	// Substitutes are files the jail sees in place of others: a per-run
	// copy the supervisor made stands at Path, so that what the jail
	// writes there never reaches the original (the supervisor merges back
	// what it trusts). Only with the mount namespace; Path must exist.
	Substitutes []Substitute
}

// Substitute shows the regular file Source at Path inside the jail.
type Substitute struct {
	Path, Source string
}

// Net says how the jail reaches the network: only through the
// supervisor's HTTP proxy.
type Net struct {
	// ProxyPort is the TCP port of the proxy as the jail sees it on
	// 127.0.0.1. With a network namespace the jail's init listens on it
	// inside and hands the listening socket to the supervisor (see
	// Process.ProxyListener); without one it is the supervisor's own
	// port and Landlock allows TCP connect to it alone.
	ProxyPort int
	// Open lets the jail reach the whole network directly: no network
	// namespace (Enforce.NetNS must be off), no Landlock rule on TCP
	// connect and UDP allowed. The broker asks for it for an approved
	// command whose need is the network itself (git push over ssh, npm
	// publish) and says so to the human; run mode never does.
	Open bool
	// Forward lists TCP ports of the host's loopback services (a local
	// model server, a database) that the jail's init also listens on, on
	// its own 127.0.0.1 and ::1, inside the network namespace (it needs
	// Enforce.NetNS): the supervisor accepts on those sockets (see
	// Process.Forwards), asks the proxy's decider about each connection
	// and relays an allowed one to the same address and port on the
	// host. Nothing else of the host's loopback is reachable.
	Forward []int
}

// Limits are the cgroup limits; zero means no limit.
type Limits struct {
	MemoryBytes int64   // memory.max / memory.limit_in_bytes (swap included)
	Pids        int64   // pids.max
	CPUs        float64 // CPU quota in cores (1.5 = 150 ms per 100 ms)
}

// IsZero reports whether no limit is set.
func (l Limits) IsZero() bool { return l == Limits{} }

// Enforce lists the layers to apply. The launcher sets each from the
// jail's Report and the user's --allow-degraded; a layer asked for but not
// applicable is an error from Start, never a silent skip.
type Enforce struct {
	Cgroup     bool // put the jail in a fresh cgroup with Limits; kill it whole at the end
	Landlock   bool // file-system (and, without NetNS, TCP) rules and IPC scoping
	Seccomp    bool // the syscall filter
	NoNewPrivs bool // no_new_privs and an empty capability bounding set
	MountNS    bool // read-only binds over ReadOnly, tmpfs over Hidden, private /proc
	PidNS      bool // the jail's init is pid 1: the jail dies with it
	NetNS      bool // loopback only; the proxy is brought in
}
