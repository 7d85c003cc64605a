package launcher

import (
	"io"
	"log/slog"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// Options configure one `sandbox run`. Zero values take the documented
// defaults.
type Options struct {
	// Folder is the project: writable, except .sandbox/ (bar the
	// escalation queue's tmp/ and pending/) and ProtectedPaths.
	Folder folder.Folder
	// Argv is the command; Argv[0] is looked up on the jail's PATH.
	Argv []string
	// Direct is what the shell Argv would only have started (Spec.Direct).
	Direct []string
	// Dir is the command's working directory (default Folder.Root).
	Dir string
	// Env is the base environment (default os.Environ()). Proxy
	// variables, agent sockets and the jail's own markers are replaced.
	Env []string

	// Limits are the cgroup limits (zero: none).
	Limits Limits
	// AllowDegraded names the layers the user accepts as degraded or
	// missing; any other layer that is not fully enforced stops the run.
	AllowDegraded []Layer
	// Disable turns layers off even where the machine has them (tests,
	// debugging). A disabled layer counts as missing and must be allowed.
	// Disabling the mount layer disables the pid and network layers too.
	Disable []Layer

	// Agent picks the per-agent writable config and cache dirs (claude,
	// codex, gemini, cursor-agent); "" means the base name of Argv[0].
	Agent string
	// Writable adds trees the jail may write (absolute or ~/...).
	Writable []string
	// Protected adds project-relative paths that stay read-only, to
	// ProtectedPaths.
	Protected []string
	// StateDir is the per-user state dir to hide (default
	// userstate.DefaultDir()).
	StateDir string

	// EnvKeep and EnvDrop add to the environment's rules (the policy's
	// run: env: keep and drop): variables matching DefaultEnvDrop or
	// EnvDrop are removed unless they match EnvKeep or the agent's key.
	EnvKeep, EnvDrop []string
	// HideReads are the read policy's deny and escalate patterns; those
	// that name concrete paths are hidden in the jail.
	HideReads []string

	// ShimDir, when set, goes first on the jail's PATH (run mode puts
	// .sandbox/shims there). The launcher does not create shims.
	ShimDir string
	// Decider decides every destination the jail asks the proxy for;
	// nil denies them all.
	Decider NetDecider
	// Forward adds host loopback ports to forward into the jail (see
	// jailspec.Net.Forward) to those the deciders name (PortForwarder);
	// each connection is still decided by Decider. Only with a network
	// namespace: without one the jail gets none.
	Forward []int
	// CI marks a run without a human: the jail's environment gets
	// SANDBOX_CI=1. Deciding escalations in CI is the Decider's and the
	// shims' business.
	CI bool

	// ForwardSignals relays SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2
	// and SIGWINCH received by this process to the jailed command.
	ForwardSignals bool

	Stdin  io.Reader // default: none (the null device)
	Stdout io.Writer // default: none
	Stderr io.Writer // default: none; also receives the "not enforced" warning
	// Quiet leaves out the "not enforced" warning: the command's stderr is
	// the command's own (connector mode's jailed commands; doctor and the
	// session brief say what is degraded).
	Quiet bool
	// SharedTmp gives the jail the host's own /tmp and /var/tmp instead
	// of private ones, with every socket found in them when the jail
	// starts hidden (jailspec.FS.SharedTmp). Connector mode's jailed
	// commands need it: each is a jail of its own between the agent's
	// unjailed tool calls, and agents hand files over through /tmp. Run
	// mode keeps the private ones: the whole agent lives in the jail.
	SharedTmp bool

	// Started, when set, is called once the command has started in its
	// jail (not when the jail failed to start).
	Started func()
	// Ended, when set, is called as soon as the command has ended and
	// nothing of the jail runs any more, before the jail's teardown,
	// which Run still waits for (jailspec.Spec.Ended; not called where
	// the jail cannot tell).
	Ended func(ExitStatus)

	// Logger receives debug and proxy decisions; nil discards.
	Logger *slog.Logger
	// Jail overrides this OS's jail (tests).
	Jail Jail

	// bus is the run's bus (Bus.Apply), whose environment the run waits
	// for once the jail's init is on its way.
	bus *Bus
}

// Limits are the cgroup limits of a run; zero fields are unlimited.
type Limits = jailspec.Limits
