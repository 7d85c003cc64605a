package shell

import "strings"

// awkSpec reads the options of gawk, mawk, busybox awk and the one true
// awk. Options end at the program (gawk, mawk); an option-like word after
// it escalates for the awks that permute.
var awkSpec = optSpec{
	argShort:  "FvfeEilW",
	optShort:  "dDLop",
	argLong:   []string{"--field-separator", "--assign", "--file", "--source", "--exec", "--include", "--load"},
	posixStop: true,
}

// awkSafeOpts are the options that neither load code, nor read or write
// files: any other (-f, -E, -i, -l, -W ..., --exec, --include, --load,
// -d/-D/-o/-p and their long forms, an option some awk does not have)
// escalates.
var awkSafeOpts = map[string]bool{
	"-F": true, "-v": true, "-e": true, "-b": true, "-c": true, "-C": true, "-h": true,
	"-k": true, "-L": true, "-M": true, "-n": true, "-N": true, "-O": true, "-P": true,
	"-r": true, "-s": true, "-S": true, "-t": true, "-V": true,
	"--field-separator": true, "--assign": true, "--source": true, "--characters-as-bytes": true,
	"--traditional": true, "--copyright": true, "--help": true, "--csv": true, "--lint": true,
	"--bignum": true, "--non-decimal-data": true, "--use-lc-numeric": true, "--optimize": true,
	"--posix": true, "--re-interval": true, "--no-optimize": true, "--sandbox": true,
	"--lint-old": true, "--version": true,
}

// awkTool: awk programs that call system(), pipe, redirect to a computed
// name or touch ARGV/ENVIRON escalate; literal redirections write, file
// operands and getline < FILE read.
func awkTool(w *walker, argv []Word, c cmdCtx) {
	name := baseName(argv[0].Text)
	p := parseArgs(argv[1:], &awkSpec)
	if p.dynamic {
		w.a.opaqueSrc(c.src, name+" has an argument of unknown value that could be a program")
		return
	}
	for _, o := range p.opts {
		if !awkOptionSafe(o.name) {
			w.a.opaqueSrc(c.src, name+" "+o.name+" loads a program or library, writes a file, or is not understood")
		}
	}
	progs := p.values("-e", "--source")
	files := p.operands
	if len(progs) == 0 && !p.has("-f", "--file", "-E", "--exec", "-W") && len(files) > 0 {
		progs, files = files[:1], files[1:]
	}
	for _, prog := range progs {
		w.awkProgram(name, prog, c)
	}
	for _, f := range files {
		switch {
		case f.Text != "-" && strings.HasPrefix(f.Text, "-"):
			w.a.opaqueSrc(c.src, name+" has an option after its program ("+clip(f.Text)+")")
		case !isAssignWord(f.Text) && f.Text != "-":
			w.awkInet(name, f.Text, c)
			w.pathEffect(Read, f, name+" reads the file", c.src)
		}
	}
	if c.open {
		w.openOperands(roleRead, name, c)
	}
}

func awkOptionSafe(opt string) bool {
	if awkSafeOpts[opt] {
		return true
	}
	if !strings.HasPrefix(opt, "--") || len(opt) < 5 {
		return false
	}
	// An abbreviation is safe only when every option it can stand for is.
	matched := false
	for _, full := range []string{"--field-separator", "--assign", "--source", "--file", "--exec", "--include",
		"--load", "--dump-variables", "--debug", "--pretty-print", "--profile", "--gen-pot", "--characters-as-bytes",
		"--traditional", "--copyright", "--help", "--csv", "--lint", "--lint-old", "--bignum", "--non-decimal-data",
		"--use-lc-numeric", "--optimize", "--posix", "--re-interval", "--no-optimize", "--sandbox", "--version",
		"--trace", "--persist", "--include"} {
		if strings.HasPrefix(full, opt) {
			if !awkSafeOpts[full] {
				return false
			}
			matched = true
		}
	}
	return matched
}

func (w *walker) awkProgram(name string, prog Word, c cmdCtx) {
	if prog.Dynamic {
		w.a.opaqueSrc(c.src, name+" program is not literal")
		return
	}
	p := parseAwk(prog.Text)
	if p.danger != "" {
		w.a.opaqueSrc(c.src, name+" program "+p.danger)
	}
	for _, f := range p.writes {
		w.pathEffect(Write, Word{Text: f}, name+" print > writes the file", c.src)
	}
	for _, f := range p.reads {
		w.awkInet(name, f, c)
		w.pathEffect(Read, Word{Text: f}, name+" getline < reads the file", c.src)
	}
	if p.getline {
		w.a.add(Effect{Kind: Read, Path: "(awk getline <)", Dynamic: true, Reason: name + " getline reads a file named by the program", Source: c.src})
	}
}

// awkInet escalates a file name that gawk opens as a network connection
// (/inet/tcp/0/HOST/PORT, /inet4/..., /inet6/...), as input or with
// getline <: awk is gawk on many systems.
func (w *walker) awkInet(name, file string, c cmdCtx) {
	for _, p := range []string{"/inet/", "/inet4/", "/inet6/"} {
		if strings.HasPrefix(file, p) {
			w.a.opaqueSrc(c.src, name+" opens "+clip(file)+" as a network connection (gawk)")
			return
		}
	}
}
