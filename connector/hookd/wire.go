// Package hookd is the wire of the hook server (`sandbox hookd`): the
// request an agent's shell sends, with no process of its own, to have an
// allowed command run in the project jail, and the check that the
// process which sent it is who it says it is.
//
// The request travels over a TCP connection to the server's loopback
// port that bash opens itself (`exec 9<>/dev/tcp/127.0.0.1/PORT`): fields
// separated by NUL bytes,
//
//	sandbox-run 2 \0 PID \0 ROOT \0 DIR \0 SCRIPT \0 EXPORTS \0
//
// where PID is the sending shell ($BASHPID), which holds the connection
// as its descriptor 9 and whose standard output and error the command
// writes to; ROOT is the project, DIR the shell's directory, SCRIPT the
// command, and EXPORTS the shell's exported variables as its `export -p`
// writes them (one builtin: a loop over the variables in bash took
// milliseconds; ParseExports).
// The answer is "CODE\0DIR\0": the command's exit status and the
// directory its shell ended in (empty when it reported none), or
// "fallback\0\0" when the server cannot run it (the shell then starts
// the jail itself, as without a server).
package hookd

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Magic opens every request: the protocol's name and version.
const Magic = "sandbox-run 2"

// CwdTrap opens every jailed script of the connector's forms (served
// and plain): at its end the shell writes the directory it is in to its
// standard input, which the jail's caller reads and the agent's shell
// changes to (`cd` in one tool call holds for the next).
const CwdTrap = "trap 'pwd -P >&0 2>/dev/null' EXIT; "

// ClientFD is the descriptor the sending shell holds the connection on.
const ClientFD = 9

// Fallback is the answer that tells the shell to jail the command itself:
// nothing ran.
const Fallback = "fallback"

// MaxRequest bounds a request: the script and the environment together.
const MaxRequest = 8 << 20

// ErrRequest is a malformed request.
var ErrRequest = errors.New("hookd: malformed request")

// ErrVersion is a request of another version of the protocol (a hook's
// answer made by another sandbox binary than the server's): the server
// answers Fallback, and the shell jails the command itself.
var ErrVersion = errors.New("hookd: another version of the protocol")

// Request is what a shell asks for.
type Request struct {
	PID    int
	Root   string
	Dir    string
	Script string
	Env    []string
}

// ReadRequest reads one request from r, at most MaxRequest bytes.
func ReadRequest(r io.Reader) (*Request, error) {
	br := bufio.NewReader(io.LimitReader(r, MaxRequest+1))
	read := 0
	field := func() (string, error) {
		s, err := br.ReadString(0)
		read += len(s)
		if read > MaxRequest {
			return "", fmt.Errorf("%w: over %d bytes", ErrRequest, MaxRequest)
		}
		if err != nil {
			return "", fmt.Errorf("%w: cut short: %v", ErrRequest, err)
		}
		return s[:len(s)-1], nil
	}
	var head [6]string
	for i := range head {
		s, err := field()
		if err != nil {
			return nil, err
		}
		head[i] = s
	}
	if head[0] != Magic {
		if strings.HasPrefix(head[0], "sandbox-run ") {
			return nil, fmt.Errorf("%w: %q, not %q", ErrVersion, head[0], Magic)
		}
		return nil, fmt.Errorf("%w: not %q", ErrRequest, Magic)
	}
	pid, err := strconv.Atoi(head[1])
	if err != nil || pid <= 0 || head[1] != strconv.Itoa(pid) {
		return nil, fmt.Errorf("%w: pid %q", ErrRequest, head[1])
	}
	q := &Request{PID: pid, Root: head[2], Dir: head[3], Script: head[4]}
	if !strings.HasPrefix(q.Root, "/") || !strings.HasPrefix(q.Dir, "/") {
		return nil, fmt.Errorf("%w: the project and the directory must be absolute paths", ErrRequest)
	}
	if q.Env, err = ParseExports(head[5]); err != nil {
		return nil, err
	}
	return q, nil
}

// WriteAnswer writes how the command ended.
func WriteAnswer(w io.Writer, code int, dir string) error {
	if strings.IndexByte(dir, 0) >= 0 {
		dir = ""
	}
	_, err := io.WriteString(w, strconv.Itoa(code)+"\x00"+dir+"\x00")
	return err
}

// WriteFallback tells the shell to start the jail itself.
func WriteFallback(w io.Writer) error {
	_, err := io.WriteString(w, Fallback+"\x00\x00")
	return err
}
