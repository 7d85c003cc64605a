package shell

import "strings"

// pytest runs the project's tests (code the jail contains). What its
// command line adds on top: files it writes (--basetemp, which it also
// empties, --junitxml, logs), tests and configuration taken from outside
// the directory it starts in, and --pastebin, which sends the results to a
// web service. Options are argparse's: --name=VALUE or --name VALUE, with
// unique abbreviations.

var pytestWriteOpts = []string{"--basetemp", "--junitxml", "--junit-xml", "--resultlog", "--result-log",
	"--log-file", "--report-log", "--debug"}

var pytestDirOpts = []string{"--rootdir", "-c", "--config-file", "--confcutdir", "--override-ini", "-o"}

// pytestTool: pytest [OPTIONS] [PATHS].
func pytestTool(w *walker, argv []Word, c cmdCtx) {
	w.pytestArgs(argv[1:], c)
}

func (w *walker) pytestArgs(args []Word, c cmdCtx) {
	spec := optSpec{argShort: "kmpcorW", argLong: append(append([]string{"--pastebin", "--deselect", "--ignore",
		"--ignore-glob", "--import-mode", "--tb", "--capture", "--durations", "--maxfail", "--pdbcls", "-p",
		"--log-level", "--log-format", "--cov", "--cov-report"}, pytestWriteOpts[:len(pytestWriteOpts)-1]...), pytestDirOpts...)}
	p := parseArgs(args, &spec)
	if p.dynamic {
		w.a.opaqueSrc(c.src, "pytest has an argument of unknown value that could be an option that writes or sends files")
	}
	if p.has("--pastebin") {
		w.a.opaqueSrc(c.src, "pytest --pastebin sends the results to a web service")
	}
	for _, o := range pytestDirOpts {
		for _, v := range p.values(o) {
			if o == "-o" || o == "--override-ini" || leavesDir(v) {
				w.a.opaqueSrc(c.src, "pytest "+o+" "+clip(v.Text)+" takes configuration (addopts, plugins, cache_dir) from elsewhere")
			}
		}
	}
	for _, f := range p.values(pytestWriteOpts...) {
		w.pathEffect(Write, f, "pytest writes the file", c.src)
	}
	for _, r := range p.values("--cov-report") {
		if _, dest, ok := strings.Cut(r.Text, ":"); ok || r.Dynamic {
			w.pathEffect(Write, Word{Text: dest, Dynamic: r.Dynamic}, "pytest-cov writes the report", c.src)
		}
	}
	for _, op := range p.operands {
		path, _, _ := strings.Cut(op.Text, "::")
		if leavesDir(Word{Text: path, Dynamic: op.Dynamic}) {
			w.a.opaqueSrc(c.src, "pytest runs tests (and their conftest.py) from outside the directory: "+clip(op.Text))
		}
	}
}

// pythonModule applies what the analyzer knows of a module run with
// python -m to its arguments (python -m pytest).
func (w *walker) pythonModule(argv []Word, c cmdCtx) {
	for i := 1; i < len(argv); i++ {
		t := argv[i].Text
		if argv[i].Dynamic || !strings.HasPrefix(t, "-") {
			return
		}
		mod, rest := "", argv[i+1:]
		switch {
		case t == "-W" || t == "-X" || t == "-Q":
			i++
			continue
		case t == "-m" && i+1 < len(argv):
			mod, rest = argv[i+1].Text, argv[i+2:]
		case strings.HasPrefix(t, "-m"):
			mod = t[2:]
		default:
			continue
		}
		if mod == "pytest" {
			w.pytestArgs(rest, c)
		}
		return
	}
}
