// Package shell turns a shell script (or an argv) into every effect it
// could have: each simple command it would run, after unwrapping wrappers
// such as env, timeout, xargs and bash -c; each file it would write or read
// through redirections or well-known tools; each network destination; and
// an Opaque effect for anything it cannot see through. The policy engine
// decides on effects; this package only describes them.
//
// What a caller must do with the effects, to fail closed:
//
//   - Opaque escalates (or denies), whatever else the script does. It covers
//     parse errors, unknown syntax, limits (size, depth, effect count, work),
//     string-evaluating builtins, interpreters given program text, dangerous
//     options, assignments to variables such as PATH, and arithmetic that
//     reads a variable of unknown content.
//   - Protected denies: a word, glob, brace or here-document may name a
//     protected component (Options.Protected) after expansion.
//   - An Exec whose Args hold a Dynamic word can run anything that word
//     expands to, including several words and options: an allow rule should
//     only match it where it says so. Glob words are Dynamic with Glob set.
//   - OpenEnded Execs (xargs) get more arguments at run time.
//   - Write and Read paths are relative to the directory the script starts
//     in: cd, pushd, env -C and git -C are applied ("cd sub && cat x" reads
//     sub/x). When a cd makes the directory unknown (cd $d, cd -, popd, a cd
//     that may have failed, a cd in a loop), a relative path becomes Dynamic
//     and starts with "$PWD/". A Dynamic path that is a plain glob (Glob
//     words) is relative like a literal one; other Dynamic paths are unknown.
//     Relative cd targets are joined as if CDPATH were unset.
//   - Wrappers and shells are unwrapped only when named bare or by a path in
//     a system bin directory: ./env or /tmp/x/sh stay ordinary Execs. Tool
//     and interpreter checks apply by base name, whatever the path.
//   - Declarations, [[ ]], (( )) and plain assignments produce no Exec: they
//     are shell syntax, checked here.
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
	// Understood is set on an Exec whose every effect (the files it
	// writes and reads, the hosts it reaches) follows it as sibling
	// effects, and which runs no other program: a table tool such as
	// mkdir, touch, cp, mv, rm, ln, chmod or tar with options the analyzer
	// decodes in full (understood.go). The policy may allow such a command
	// on its effects alone, without a shell rule naming it. Never set
	// with an Opaque or Protected sibling, a dynamic command name, an
	// interpreter, or xargs-appended arguments.
	Understood bool
	// Path is the file written or read, as written in the script, not
	// resolved (Write, Read, Protected). Host is host:port (Network).
	Path string
	Host string
	// Dynamic is set when Path or Host contains an expansion.
	Dynamic bool
	// Recursive is set on a Read of a directory whose whole tree the tool
	// reads (grep -r, rg, diff -r, cp -r): it reads every file under Path.
	Recursive bool
	// SkipsHidden refines Recursive: the tool skips names starting with a
	// dot below Path (rg without --hidden), so only visible files count.
	SkipsHidden bool
	// FollowsLinks refines Recursive: the tool follows symbolic links it
	// finds below Path (grep -R, rg -L, diff), so their targets are read.
	FollowsLinks bool
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
	// Root, when set, is the project's root (absolute, clean): a literal
	// absolute word inside it is checked for Protected names below the
	// root only (an agent's worktree lies inside MAIN's .sandbox/).
	Root string
}
