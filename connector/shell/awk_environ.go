package shell

import "strings"

// plainEnviron reports ENVIRON["NAME"] where NAME is a literal naming a
// variable that holds no secret (HOME, PATH, GOPATH, ...): the program
// prints no more than `printenv NAME` would. Any other use (a computed
// subscript, `for (k in ENVIRON)`, a name not on the list) stays a
// danger: the environment is where tokens and keys live. So is a file
// named by it (getline < ENVIRON["HOME"], print > ENVIRON["X"]): that
// is a path of unknown value. On success the subscript's tokens are
// consumed.
func (sc *awkScan) plainEnviron() bool {
	if b := sc.before; b.kind == awkOp && awkFileOps[b.text] || sc.getline {
		return false
	}
	peek := *sc.l
	peek.parens = append([]bool(nil), sc.l.parens...)
	open, name, closing := peek.next(), peek.next(), peek.next()
	if open.kind != awkOp || open.text != "[" || name.kind != awkString ||
		closing.kind != awkOp || closing.text != "]" || peek.danger != "" || !plainEnvName(name.text) {
		return false
	}
	*sc.l = peek
	return true
}

// awkFileOps are the operators after which an expression names a file or
// a command.
var awkFileOps = map[string]bool{"<": true, ">": true, ">>": true, "|": true, "|&": true}

// plainEnvNames are variables every shell and toolchain sets, none a
// secret. A list of what is allowed, not of what is secret: a name not
// here escalates.
var plainEnvNames = map[string]bool{
	"HOME": true, "PATH": true, "USER": true, "LOGNAME": true, "SHELL": true, "PWD": true, "OLDPWD": true,
	"LANG": true, "LANGUAGE": true, "TERM": true, "TMPDIR": true, "HOSTNAME": true, "EDITOR": true,
	"VISUAL": true, "PAGER": true, "TZ": true, "CI": true, "SHLVL": true,
	"GOPATH": true, "GOROOT": true, "GOOS": true, "GOARCH": true, "GOBIN": true, "GOCACHE": true,
	"GOMODCACHE": true, "GOFLAGS": true, "CGO_ENABLED": true, "NODE_ENV": true, "NODE_PATH": true,
	"PYTHONPATH": true, "VIRTUAL_ENV": true, "CONDA_PREFIX": true, "CARGO_HOME": true, "RUSTUP_HOME": true,
	"JAVA_HOME": true, "XDG_CONFIG_HOME": true, "XDG_CACHE_HOME": true, "XDG_DATA_HOME": true,
	"XDG_STATE_HOME": true, "XDG_RUNTIME_DIR": true,
}

func plainEnvName(n string) bool {
	return plainEnvNames[n] || strings.HasPrefix(n, "LC_") && isName(n)
}
