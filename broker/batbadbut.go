package broker

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Batch files and cmd.exe get their arguments back as one command line
// that cmd.exe parses again with its own rules: %VAR% and !VAR! expand,
// & | < > ( ) separate or redirect, ^ escapes, and a '"' inside an
// argument cannot be escaped at all. An argv that the approver saw as
// plain words can therefore run other commands (the "BatBadBut" class of
// bugs). The broker never assembles a command line, so it cannot quote
// for cmd.exe; instead it refuses to start a batch file (.bat, .cmd) or
// cmd.exe with an argument, or a path, that cmd.exe would read as anything
// but literal text.

// cmdSpecial are the characters cmd.exe treats specially, in or out of
// quotes.
const cmdSpecial = "%!\"^&|<>()`"

// runsThroughCmd reports whether Windows starts path through cmd.exe (a
// batch file), or path is cmd.exe itself. The name is read as Windows
// opens it: case folded, a ":stream" suffix cut, trailing dots and spaces
// trimmed.
func runsThroughCmd(path string) bool {
	name := path[strings.LastIndexAny(path, `\/`)+1:]
	if i := strings.IndexByte(name, ':'); i >= 0 {
		name = name[:i]
	}
	name = strings.ToLower(strings.TrimRight(name, ". "))
	return strings.HasSuffix(name, ".bat") || strings.HasSuffix(name, ".cmd") || name == "cmd.exe" || name == "cmd"
}

// checkCmdArgs returns nil unless path runs through cmd.exe with a path or
// an argument that cmd.exe would not take literally; then it returns an
// error wrapping ErrShell that names the first such argument.
func checkCmdArgs(path string, argv []string) error {
	if !runsThroughCmd(path) {
		return nil
	}
	if why := unsafeForCmd(path, false); why != "" {
		return fmt.Errorf("%w: cmd.exe would re-parse the batch file's path %q: %s (BatBadBut)", ErrShell, path, why)
	}
	for i, a := range argv {
		if i == 0 {
			continue
		}
		if why := unsafeForCmd(a, true); why != "" {
			return fmt.Errorf("%w: %s runs through cmd.exe, which would re-parse argument %d %q: %s; "+
				"the broker refuses it (BatBadBut)", ErrShell, path, i, a, why)
		}
	}
	return nil
}

// unsafeForCmd says why s is not literal text for cmd.exe once Go has
// quoted it (only when it holds a space or a tab), or "" when it is.
func unsafeForCmd(s string, arg bool) string {
	if !utf8.ValidString(s) {
		return "not valid UTF-8"
	}
	for _, r := range s {
		switch {
		case r < 0x20 && r != '\t' || r == 0x7f:
			return fmt.Sprintf("control character %U", r)
		case r > 0x7e:
			return fmt.Sprintf("non-ASCII character %U (code-page conversion may turn it into a special one)", r)
		case strings.ContainsRune(cmdSpecial, r):
			return fmt.Sprintf("%q is special to cmd.exe", r)
		}
	}
	if arg && strings.ContainsAny(s, " \t") && strings.HasSuffix(s, `\`) {
		return "a quoted argument ending in a backslash reaches the batch file with that backslash doubled"
	}
	return ""
}
