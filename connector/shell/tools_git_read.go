package shell

import "strings"

// Git subcommands the policy allows as read-only that can read any file,
// not only the repository's: git diff outside the repository (explicitly
// with --no-index, or when a path leads out of it), git grep --no-index
// and --untracked (which search ignored files such as .env), git blame
// --contents, and git config --file (which prints an INI file such as
// ~/.aws/credentials as configuration).

// gitReads adds the Read effects of sub with its raw arguments args.
func (w *walker) gitReads(sub string, args []Word, c cmdCtx) {
	switch sub {
	case "diff":
		w.gitDiffReads(args, c)
	case "grep":
		w.gitGrepReads(args, c)
	case "blame", "annotate":
		for _, f := range gitOptValues(args, "--contents", "-S", "--ignore-revs-file") {
			w.pathEffect(Read, f, "git "+sub+" reads the file", c.src)
		}
	case "show", "cat-file":
		for _, f := range gitObjectPaths(args) {
			w.pathEffect(Read, f, "git "+sub+" prints the file as the repository holds it", c.src)
		}
	case "config":
		for _, f := range gitOptValues(args, "-f", "--file") {
			w.pathEffect(Read, f, "git config --file reads (and prints) the file", c.src)
		}
	case "commit", "tag", "merge", "notes":
		// The message from a file: it lands in the repository, and the
		// next push carries it away.
		for _, f := range gitShortValues(args, "F", gitMsgShorts[sub]) {
			w.pathEffect(Read, f, "git "+sub+" -F reads the message from the file", c.src)
		}
		for _, f := range gitOptValues(args, "--file", "--template") {
			w.pathEffect(Read, f, "git "+sub+" reads the message or template from the file", c.src)
		}
		if sub == "commit" {
			for _, f := range gitShortValues(args, "t", gitMsgShorts[sub]) {
				w.pathEffect(Read, f, "git commit -t reads the template", c.src)
			}
		}
	}
	// A pathspec list read from a file: its lines come back in git's
	// messages ("pathspec '...' did not match").
	for _, f := range gitOptValues(args, "--pathspec-from-file") {
		if f.Text != "-" {
			w.pathEffect(Read, f, "git "+sub+" reads pathspecs from the file", c.src)
		}
	}
}

// gitMsgShorts are, per subcommand, the short options that take a value
// (git's parse-options lets them end a cluster: -aF FILE, -amMSG).
var gitMsgShorts = map[string]string{
	"commit": "mFCctS", "tag": "mFu", "merge": "mFsX", "notes": "mFCc",
}

// gitShortValues returns the values of the short option want, also when
// it ends a cluster of options (-aF FILE) or holds its value (-Ffile).
// takes lists the options that take a value; the first one in a cluster
// takes the rest of the word.
func gitShortValues(args []Word, want, takes string) []Word {
	var out []Word
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		if args[i].Dynamic || t == "--" {
			break
		}
		if len(t) < 2 || t[0] != '-' || t[1] == '-' {
			continue
		}
		for j := 1; j < len(t); j++ {
			if strings.IndexByte(takes, t[j]) < 0 {
				continue
			}
			if t[j:j+1] == want {
				if j+1 < len(t) {
					out = append(out, Word{Text: t[j+1:]})
				} else if i+1 < len(args) {
					out = append(out, args[i+1])
				}
			}
			if j+1 == len(t) {
				i++ // the next word is the value
			}
			break
		}
	}
	return out
}

// gitDiffReads: with --no-index both operands are read whole; without it
// git still compares files when a path leads out of the repository.
func (w *walker) gitDiffReads(args []Word, c cmdCtx) {
	noIndex := false
	var ops []Word
	for i, a := range args {
		switch {
		case a.Text == "--" && !a.Dynamic:
			ops = append(ops, args[i+1:]...)
			noIndex = noIndex || hasNoIndex(args[:i])
			w.gitDiffOperands(ops, noIndex, c)
			return
		case strings.HasPrefix(a.Text, "-") && !a.Dynamic:
		default:
			ops = append(ops, a)
		}
	}
	w.gitDiffOperands(ops, hasNoIndex(args), c)
}

func (w *walker) gitDiffOperands(ops []Word, noIndex bool, c cmdCtx) {
	for _, op := range ops {
		if noIndex || leavesDir(op) {
			w.readTree(op, "git diff reads the file (outside the repository, or --no-index)", c.src)
		}
	}
}

// hasNoIndex reports --no-index (git diff matches it exactly; any
// spelling that starts like it counts here).
func hasNoIndex(args []Word) bool {
	for _, a := range args {
		if !a.Dynamic && strings.HasPrefix(a.Text, "--no-i") {
			return true
		}
	}
	return false
}

// gitGrepReads: --no-index searches the directory as files (ignored ones
// too), --untracked adds the untracked files; the pattern comes first
// unless -e or -f gives it; -f reads the patterns from a file.
func (w *walker) gitGrepReads(args []Word, c cmdCtx) {
	for _, f := range gitOptValues(args, "-f") {
		w.pathEffect(Read, f, "git grep -f reads the patterns from the file", c.src)
	}
	wide := false
	for _, a := range args {
		if !a.Dynamic && (strings.HasPrefix(a.Text, "--no-i") || longIs(a.Text, "--untracked") || strings.HasPrefix(a.Text, "--no-exclude-st")) {
			wide = true
		}
	}
	if !wide {
		return
	}
	g := parseGitArgs(args)
	ops := g.operands
	if !g.has("-e", "-f") && len(g.values("-e")) == 0 && len(ops) > 0 {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		ops = []Word{{Text: "."}}
	}
	for _, op := range ops {
		w.readTree(op, "git grep --no-index/--untracked reads the files under it", c.src)
	}
}

// gitOptValues returns the values of the named options in git's
// parse-options forms: -xVAL, -x VAL, --name=VAL, --name VAL and unique
// abbreviations of --name.
func gitOptValues(args []Word, names ...string) []Word {
	var out []Word
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		if args[i].Dynamic || t == "--" {
			break
		}
		for _, n := range names {
			switch {
			case strings.HasPrefix(n, "--"):
				name, val, has := strings.Cut(t, "=")
				if !strings.HasPrefix(name, "--") || !longIs(name, n) {
					continue
				}
				if has {
					out = append(out, Word{Text: val})
				} else if i+1 < len(args) {
					out = append(out, args[i+1])
				}
			case t == n && i+1 < len(args):
				out = append(out, args[i+1])
			case strings.HasPrefix(t, n) && len(t) > len(n) && !strings.HasPrefix(t, "--"):
				out = append(out, Word{Text: t[len(n):]})
			}
		}
	}
	return out
}

// gitObjectPaths returns the PATH of each REV:PATH, :PATH and :N:PATH
// operand (a file as a commit or the index holds it): reading it reads
// that file's content, so the read rules for PATH apply. The path is
// relative to the top of the work tree; the project root normally is it.
func gitObjectPaths(args []Word) []Word {
	var out []Word
	for _, a := range args {
		t := a.Text
		if a.Dynamic || strings.HasPrefix(t, "-") {
			continue
		}
		rest, ok := "", false
		switch {
		case len(t) > 3 && t[0] == ':' && t[1] >= '0' && t[1] <= '3' && t[2] == ':':
			rest, ok = t[3:], true
		case strings.HasPrefix(t, ":/"):
			continue // a commit message search, not a path
		default:
			_, rest, ok = strings.Cut(t, ":")
		}
		if ok && rest != "" {
			out = append(out, Word{Text: rest})
		}
	}
	return out
}
