package broker

import (
	"fmt"
	"os"
	"time"
)

// Defaults applied by Run to zero fields of a Spec.
const (
	DefaultTimeout    = 10 * time.Minute
	DefaultMaxCapture = 64 << 10 // per stream
	// KillGrace is how long the process group has between SIGTERM and SIGKILL.
	KillGrace = 2 * time.Second
	// DrainTimeout bounds the wait for output after the leader is gone
	// (a process that escaped the group may hold the pipes open).
	DrainTimeout = 2 * time.Second
)

// Stream names passed to Spec.OnOutput.
const (
	Stdout = "stdout"
	Stderr = "stderr"
)

// Spec is one approved command, taken from the approver's memory.
// Exactly one of Script and Argv is set.
type Spec struct {
	// Script runs as `SHELL -c SCRIPT`, the shell resolved to a fixed trusted
	// path (bash: /bin/bash or /usr/bin/bash; sh: /bin/sh), never via PATH.
	Script string
	Shell  string // "bash" (default), "sh", "dash", "zsh"
	// Argv runs directly, no shell. A bare name is looked up on the PATH of
	// Env (absolute entries only); a name with a slash is used as is,
	// relative to the working directory.
	Argv []string

	// Root is the project root; Dir (default Root; relative means relative
	// to Root) must resolve, symlinks followed, to a directory inside it.
	Root string
	Dir  string

	// Stdin is fed whole, then EOF; nil means /dev/null.
	Stdin []byte
	// Env is the child's whole environment, already scrubbed (see Scrub).
	// nil means Scrub(os.Environ(), nil).
	Env []string

	Timeout    time.Duration // default DefaultTimeout
	MaxCapture int           // bytes kept per stream; default DefaultMaxCapture

	// LogPath, when set, is created (it must not exist) and receives the
	// output as it arrives; see the package doc for the format.
	LogPath string
	// OnOutput, when set, sees every chunk as it arrives, for live display.
	// Calls are serialised, come from another goroutine, and p must not be
	// retained after the call. It must not block for long: the command's
	// output waits for it.
	OnOutput func(stream string, p []byte)

	// Jail, when set, runs the command in a grant jail of its own (the
	// project jail widened by Grant) instead of as a child of this
	// process. Where the jail cannot be built, the command runs without
	// one, in a cgroup of its own where that is possible, and
	// Outcome.Where says so. Nil runs it as a child, as the MCP server
	// runs the commands the policy allows.
	Jail  Jailer
	Grant Grant
}

// Outcome is how a command ended. When it was killed by a signal, Signal
// names it ("SIGKILL") and ExitCode is 128 plus its number, as a shell reports it.
type Outcome struct {
	ExitCode int
	Signal   string
	TimedOut bool

	// Stdout and Stderr are capped at MaxCapture bytes each: a longer stream
	// keeps its head and tail around a one-line mark.
	Stdout, Stderr           string
	StdoutTruncated          bool
	StderrTruncated          bool
	StdoutBytes, StderrBytes int64 // total bytes produced
	Started, Finished        time.Time
	Duration                 time.Duration

	// Jailed is set when the command ran in its grant jail; Where
	// describes it (Describe), or says why it ran without one. Both are
	// empty without Spec.Jail.
	Jailed bool
	Where  []string
}

// withDefaults validates spec and fills its zero fields.
func (s Spec) withDefaults() (Spec, error) {
	if (s.Script == "") == (len(s.Argv) == 0) {
		return s, fmt.Errorf("%w: exactly one of script and argv must be set", ErrSpec)
	}
	if len(s.Argv) > 0 && s.Argv[0] == "" {
		return s, fmt.Errorf("%w: empty program name", ErrSpec)
	}
	if s.Root == "" {
		return s, fmt.Errorf("%w: no project root", ErrSpec)
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.MaxCapture <= 0 {
		s.MaxCapture = DefaultMaxCapture
	}
	if s.Env == nil {
		s.Env = Scrub(environ(), nil)
	}
	if getenv(s.Env, "PATH") == DefaultPATH {
		s.Env = withPATH(s.Env, trustedPATH(os.Getenv("PATH"), s.Root))
	}
	return s, nil
}
