// Package shell turns a shell script (or an argv) into every effect it
// could have: each simple command it would run, after unwrapping wrappers
// such as env, timeout, xargs and bash -c; each file it would write or read
// through redirections or well-known tools; each network destination; and
// an Opaque effect for anything it cannot see through. The policy engine
// decides on effects; this package only describes them.
package shell

// Kind says what an Effect does.
type Kind int

const (
	// Exec runs a program: Args holds its words after unwrapping.
	Exec Kind = iota + 1
	// Write writes the file at Path (a redirection, tee, sed -i, ...).
	Write
	// Read reads the file at Path (a redirection, cat, grep, ...).
	Read
	// Network reaches Host (host:port), e.g. /dev/tcp/HOST/PORT.
	Network
	// Opaque is something that cannot be classified statically (eval,
	// a dynamic command name, an interpreter fed a string, a parse error,
	// a node kind the walker does not know, a dangerous flag). It must
	// escalate.
	Opaque
	// Protected is a word, glob, brace or path that can reach a protected
	// name (such as .sandbox). It must be denied.
	Protected
)

func (k Kind) String() string {
	switch k {
	case Exec:
		return "exec"
	case Write:
		return "write"
	case Read:
		return "read"
	case Network:
		return "network"
	case Opaque:
		return "opaque"
	case Protected:
		return "protected"
	}
	return "unknown"
}

// Word is one argument of a command. Text is the literal value (quotes and
// escapes removed) when Dynamic is false; when Dynamic is true the word
// contains an expansion ($VAR, $(...), a glob, ...) whose value is unknown
// statically, and Text is its source form.
//
// Glob refines Dynamic: the word is dynamic only because of unquoted glob
// characters (*, ?, [...], extended globs); Text is then the glob pattern
// with quotes removed and literal glob characters escaped with \.
type Word struct {
	Text    string
	Dynamic bool
	Glob    bool
}

// Effect is one thing a script would do.
type Effect struct {
	Kind Kind
	// Args are the command's words, name first (Exec only).
	Args []Word
	// OpenEnded is set when more arguments are appended at run time that
	// are not in Args (xargs, find -exec ... {} +). Exec only.
	OpenEnded bool
	// Path is the file written or read, as written in the script, not
	// resolved (Write, Read, Protected). Host is host:port (Network).
	Path string
	Host string
	// Dynamic is set when Path or Host contains an expansion.
	Dynamic bool
	// Reason says why this effect exists, for the human:
	// "redirection >", "sed -i edits its files", "eval runs a string".
	Reason string
	// Source is the excerpt of the script this effect comes from.
	Source string
}

// Options tunes the analysis.
type Options struct {
	// Protected lists path components (e.g. ".sandbox") that no word,
	// glob, brace expansion or path may be able to reach.
	Protected []string
}
