package live

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// ErrUnquotable: a command holds a NUL byte, which no argument can carry.
var ErrUnquotable = errors.New("the command holds a NUL byte")

// jailer rewrites an allowed command into `sandbox run --quiet --dir ROOT
// -- bash -c 'SCRIPT'`: the same command, in the project jail, from the
// agent's shell (so its working directory and environment carry over, as
// far as the jail passes them), with its output and exit status as the
// command's own. The script travels as one single-quoted argument, so
// nothing in it is ever parsed by the agent's shell.
type jailer struct {
	exe      string   // this sandbox binary
	root     string   // the project folder
	degraded []string // layers missing here that the jail accepts
}

func (j jailer) Wrap(script, _ string) (string, error) {
	if strings.IndexByte(script, 0) >= 0 {
		return "", ErrUnquotable
	}
	var b strings.Builder
	b.WriteString(shellQuote(j.exe))
	b.WriteString(" run --quiet --dir ")
	b.WriteString(shellQuote(j.root))
	if len(j.degraded) > 0 {
		b.WriteString(" --allow-degraded ")
		b.WriteString(shellQuote(strings.Join(j.degraded, ",")))
	}
	b.WriteString(" -- bash -c ")
	b.WriteString(shellQuote(script))
	return b.String(), nil
}

// shellQuote single-quotes s for a POSIX shell: inside single quotes
// nothing is special but the quote itself, written as '\”.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// jailFor is the core's jailer and jail state in connector mode, from
// what `sandbox init` or `sandbox doctor` recorded about this machine
// (inside the jail Open never gets here). Never having probed is treated as "the
// jail works": a jailed command that cannot start then fails with run's
// own message, instead of running unjailed without anyone having looked.
func jailFor(f folder.Folder, st *userstate.State) (hook.Jailer, hook.JailState, error) {
	p, err := st.ReadJailProbe()
	switch {
	case errors.Is(err, userstate.ErrNoJailProbe):
		p = userstate.JailProbe{OK: true}
	case err != nil:
		return nil, 0, err
	case !p.OK:
		return nil, hook.JailUnavailable, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, 0, fmt.Errorf("locating the sandbox binary for the jail: %w", err)
	}
	return jailer{exe: exe, root: f.Root, degraded: p.Degraded}, hook.JailWraps, nil
}
