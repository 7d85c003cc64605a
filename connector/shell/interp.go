package shell

import (
	"strings"
	"sync"
)

// interpSpec describes how an interpreter takes its program: from a
// string option (-c, -e: Opaque), from a file operand (Exec only: the
// policy decides), or from standard input (Opaque).
type interpSpec struct {
	codeShort   string   // short options whose argument is program text
	codeLong    []string // long options whose argument is program text
	argShort    string   // short options with an argument (attached or next)
	optShort    string   // short options with an optional attached argument
	argLong     []string // long options with an argument
	scriptShort string   // short options whose argument is the program file (php -f)
	moduleShort string   // short options naming a module to run (python -m)
	infoOpts    string   // options after which nothing is run (--version)
	noStdin     bool     // without a program it does not read one from stdin
	checkShort  string   // options whose value must look like a module name (perl -M)
}

// interpreters are the programs that run program text from their command
// line, by name. Built on first use (see toolSpecs).
var interpreters = sync.OnceValue(func() map[string]*interpSpec {
	return map[string]*interpSpec{
		"python":    {codeShort: "c", argShort: "WXQ", moduleShort: "m", infoOpts: "-V --version -h --help"},
		"pypy":      {codeShort: "c", argShort: "WXQ", moduleShort: "m", infoOpts: "-V --version -h --help"},
		"node":      {codeShort: "ep", codeLong: []string{"--eval", "--print"}, argShort: "rC", argLong: []string{"--require", "--import", "--loader", "--experimental-loader", "--conditions", "--input-type", "--title"}, infoOpts: "-v --version -h --help --test --run"},
		"bun":       {codeShort: "ep", codeLong: []string{"--eval", "--print"}, noStdin: true},
		"perl":      {codeShort: "eE", argShort: "IMm", optShort: "ilx0CdDFU", checkShort: "Mm", infoOpts: "-v -V --version -h --help"},
		"ruby":      {codeShort: "e", argShort: "IrCEF", optShort: "xWT0iK", infoOpts: "--version -h --help"},
		"php":       {codeShort: "rRBEdza", argShort: "ctS", scriptShort: "fF", infoOpts: "-v -h -i -m --version --help"},
		"lua":       {codeShort: "e", argShort: "l", infoOpts: "-v"},
		"luajit":    {codeShort: "e", argShort: "lbj", optShort: "O", infoOpts: "-v"},
		"rscript":   {codeShort: "e", infoOpts: "--version --help"},
		"r":         {codeShort: "e", scriptShort: "f", infoOpts: "--version --help"},
		"julia":     {codeShort: "eEL", codeLong: []string{"--eval", "--print", "--load"}, argShort: "JCOpt", infoOpts: "-v --version -h --help"},
		"osascript": {codeShort: "e", argShort: "ls"},
		"expect":    {codeShort: "c", scriptShort: "f", optShort: "D", infoOpts: "-v"},
		"tclsh":     {}, "wish": {}, "jshell": {},
		"fish":   {codeShort: "c", codeLong: []string{"--command", "--init-command"}, infoOpts: "-v --version -h --help"},
		"csh":    {codeShort: "c", infoOpts: "--version"},
		"tcsh":   {codeShort: "c", infoOpts: "--version"},
		"xonsh":  {codeShort: "c", infoOpts: "-V --version -h --help"},
		"elvish": {codeShort: "c", infoOpts: "-version -help"},
		"nu":     {codeShort: "c", codeLong: []string{"--commands"}, infoOpts: "-v --version -h --help"},
		"groovy": {codeShort: "e", infoOpts: "-v --version -h --help"},
		"scala":  {codeShort: "e", infoOpts: "-version -help"},
		"elixir": {codeShort: "er", codeLong: []string{"--eval"}, infoOpts: "-v --version -h --help"},
		"guile":  {codeShort: "ce", infoOpts: "-v --version -h --help"},
		"racket": {codeShort: "ei", infoOpts: "-v --version -h --help"},
		"ghci":   {codeShort: "e"},
	}
})

// alwaysOpaque are programs that run commands from strings or from their
// input in ways not worth modelling.
var alwaysOpaque = map[string]string{
	"cmd": "cmd runs a command string", "pwsh": "PowerShell runs command strings",
	"powershell": "PowerShell runs command strings", "ed": "ed reads commands, including !shell, from its input",
	"ex": "ex runs editor commands, including !shell", "vi": "the editor can run shell commands",
	"vim": "the editor can run shell commands", "nvim": "the editor can run shell commands",
	"view": "the editor can run shell commands", "emacs": "emacs can evaluate code",
	"gdb": "gdb can run commands", "parallel": "parallel runs command strings",
	"eval": "eval runs a string as commands",
}

// interpreterFor returns the spec for a command's base name.
func interpreterFor(key string) *interpSpec {
	if s := interpreters()[key]; s != nil {
		return s
	}
	for _, prefix := range []string{"python", "pypy", "node", "perl", "ruby", "php", "lua"} {
		if strings.HasPrefix(key, prefix) && versionSuffix(key[len(prefix):]) {
			return interpreters()[prefix]
		}
	}
	if key == "nodejs" {
		return interpreters()["node"]
	}
	return nil
}

// versionSuffix reports "3", "3.12", "-3.12", "5.36.0" and the like.
func versionSuffix(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '.' {
			return false
		}
	}
	return true
}
