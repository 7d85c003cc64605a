package live

import (
	"errors"
	"strconv"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook"
	"github.com/sandbox-dev/sandbox/connector/hookd"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// ErrUnquotable: a command holds a NUL byte, which no argument can carry.
var ErrUnquotable = errors.New("the command holds a NUL byte")

// jailer rewrites an allowed command into the same command run in the
// project jail, from the agent's own shell (so its working directory and
// environment carry over, as far as the jail passes them):
//
//	{ __sandbox_cwd=$('SANDBOX' run --quiet --shared-tmp --dir 'ROOT' --cwd-fd 3 -- bash -c 'trap ... EXIT; SCRIPT' 3>&1 1>&4 4>&-); } 4>&1
//	__sandbox_rc=$?; [ -z "$__sandbox_cwd" ] || cd -- "$__sandbox_cwd" 2>/dev/null; (exit $__sandbox_rc)
//
// stdout, stderr and the exit status are the command's own. The script
// travels as one single-quoted argument, so nothing in it is ever parsed
// by the agent's shell. The jailed shell's EXIT trap reports the directory
// it ended in (run's --cwd-fd: through the command's stdin, which is empty
// otherwise, to a descriptor the jail never holds), and the agent's shell
// moves there, so that a `cd` persists from one call to the next as it
// does unjailed. The trap sits on the script's first line, so that the
// script's line numbers (in its error messages) stay what they were; a
// script that sets its own EXIT trap or execs away just does not report.
// --shared-tmp: each command is a jail of its own, and what the agent's
// Write tool or its last command put in /tmp must be there for the next
// one; the sockets in /tmp stay hidden.
type jailer struct {
	exe      string   // this sandbox binary
	root     string   // the project folder
	degraded []string // layers missing here that the jail accepts
	port     int      // the hook server's run port, 0 without one
}

// cwdTrap is the jailed script's prefix.
const cwdTrap = hookd.CwdTrap

func (j jailer) Wrap(script, _ string) (string, error) {
	if strings.IndexByte(script, 0) >= 0 {
		return "", ErrUnquotable
	}
	var b strings.Builder
	if j.port > 0 {
		j.served(&b, script)
	}
	b.WriteString("{ __sandbox_cwd=$(")
	j.run(&b)
	b.WriteString(" --cwd-fd 3 -- bash -c ")
	b.WriteString(display.SingleQuote(cwdTrap + script))
	b.WriteString(` 3>&1 1>&4 4>&-); } 4>&1; __sandbox_rc=$?; [ -z "$__sandbox_cwd" ] || cd -- "$__sandbox_cwd" 2>/dev/null; (exit $__sandbox_rc)`)
	if j.port > 0 {
		b.WriteString("; fi")
	}
	return b.String(), nil
}

// served writes the head of the form that asks the hook server to run
// the command (connector/hookd's protocol), with no process start: bash
// connects to the server's loopback port itself and sends its pid, the
// project, its directory, the script and its exported variables; the
// server checks that this shell holds the connection, runs the command
// in the project jail with the shell's own output, and answers with the
// exit status and the final directory. When bash cannot connect (no
// server, another shell) or the server answers "fallback" (nothing ran),
// the plain form that follows starts the jail itself:
//
//	if [ "${BASH_VERSINFO-0}" -ge 5 ] && { exec 9<>/dev/tcp/127.0.0.1/PORT; } 2>/dev/null; then
//	  { printf ... } >&9; read rc; read cwd; exec 9>&-; else rc=fallback; fi
//	if [ "$rc" != fallback ]; then cd "$cwd"; (exit $rc); else PLAIN FORM; fi
//
// (with true and false for the usual 0 and 1: `(exit N)` forks a
// subshell)
func (j jailer) served(b *strings.Builder, script string) {
	port := strconv.Itoa(j.port)
	b.WriteString(`if [ "${BASH_VERSINFO-0}" -ge 5 ] && { exec ` + fd + `<>/dev/tcp/127.0.0.1/` + port + `; } 2>/dev/null; then `)
	b.WriteString(`{ printf '` + hookd.Magic + `\0%s\0%s\0%s\0%s\0' "$BASHPID" `)
	b.WriteString(display.SingleQuote(j.root))
	b.WriteString(` "$PWD" `)
	b.WriteString(display.SingleQuote(cwdTrap + script))
	b.WriteString(`; builtin export -p; printf '\0'; } >&` + fd)
	b.WriteString(`; IFS= read -r -d '' __sandbox_rc <&` + fd + `; IFS= read -r -d '' __sandbox_cwd <&` + fd + `; exec ` + fd + `>&-`)
	b.WriteString(`; else __sandbox_rc=` + hookd.Fallback + `; fi; if [ "$__sandbox_rc" != ` + hookd.Fallback + ` ]; then `)
	b.WriteString(`[ -n "$__sandbox_rc" ] || echo 'sandbox: the hook server stopped before the command ended' >&2; `)
	b.WriteString(`[ -z "$__sandbox_cwd" ] || cd -- "$__sandbox_cwd" 2>/dev/null; case ${__sandbox_rc:-125} in 0) true;; 1) false;; *) (exit ${__sandbox_rc:-125});; esac; else `)
}

// fd is the descriptor the agent's shell holds the connection on.
var fd = strconv.Itoa(hookd.ClientFD)

// WrapFresh is the jailed form for an agent that starts every command in
// a fresh shell (Gemini CLI): the same jail, the script alone, nothing
// reported back, no command substitution outside the quoted script.
//
//	'SANDBOX' run --quiet --shared-tmp --dir 'ROOT' -- bash -c 'SCRIPT'
func (j jailer) WrapFresh(script string) (string, error) {
	if strings.IndexByte(script, 0) >= 0 {
		return "", ErrUnquotable
	}
	var b strings.Builder
	j.run(&b)
	b.WriteString(" -- bash -c ")
	b.WriteString(display.SingleQuote(script))
	return b.String(), nil
}

// run writes the jail's command line up to its options' end, which both
// forms share.
func (j jailer) run(b *strings.Builder) {
	b.WriteString(display.SingleQuote(j.exe))
	b.WriteString(" run --quiet --shared-tmp --dir ")
	b.WriteString(display.SingleQuote(j.root))
	if len(j.degraded) > 0 {
		b.WriteString(" --allow-degraded ")
		b.WriteString(display.SingleQuote(strings.Join(j.degraded, ",")))
	}
}

// jailFor is the core's jailer and jail state in connector mode, from
// what `sandbox init` or `sandbox doctor` recorded about this machine
// (inside the jail Open never gets here). When nothing was recorded (a
// folder set up by an older sandbox) it probes once and records the
// result; without a prober (tests) it takes "the jail works": a jailed
// command that cannot start then fails with run's own message, instead of
// running unjailed without anyone having looked.
func jailFor(f folder.Folder, st *userstate.State, exe string, port int, probe func() userstate.JailProbe) (hook.Jailer, hook.JailState, error) {
	if exe == "" {
		return nil, hook.JailUnknown, nil
	}
	p, err := st.ReadJailProbe()
	switch {
	case errors.Is(err, userstate.ErrNoJailProbe) && probe != nil:
		p = probe()
		if err := st.WriteJailProbe(p); err != nil {
			return nil, 0, err
		}
		if !p.OK {
			return nil, hook.JailUnavailable, nil
		}
	case errors.Is(err, userstate.ErrNoJailProbe):
		p = userstate.JailProbe{OK: true}
	case err != nil:
		return nil, 0, err
	case !p.OK:
		return nil, hook.JailUnavailable, nil
	}
	return jailer{exe: exe, root: f.Root, port: port, degraded: p.Degraded}, hook.JailWraps, nil
}
