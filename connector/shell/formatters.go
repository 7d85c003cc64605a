package shell

import "strings"

// Formatters, linters and type checkers the default policy allows rewrite
// their operands (black, ruff format, prettier --write, eslint --fix, tsc
// beside its inputs), write reports and caches where an option says, and
// load configuration or plugins that are code (eslint and prettier configs
// and plugins, mypy plugins) from where an option says. The operands and
// outputs become writes; code loaded from outside the directory the
// command starts in escalates.

// lintTool is what one of those tools does with its command line.
type lintTool struct {
	opts       optSpec
	writes     func(p parsedArgs) bool // operands are rewritten
	writeOpts  []string                // options naming a file or directory written
	codeOpts   []string                // options naming code or config that is code
	readOpts   []string                // options naming a file read
	dotDefault bool                    // no operand means "."
	sub        map[string]bool         // subcommands (ruff check/format): skipped as operands
}

var lintTools = map[string]*lintTool{
	"black": {
		opts:      optSpec{exact: true, argShort: "ltWc", argLong: []string{"--code", "--line-length", "--target-version", "--include", "--exclude", "--extend-exclude", "--force-exclude", "--stdin-filename", "--workers", "--config", "--python-cell-magics", "--required-version"}},
		writes:    func(p parsedArgs) bool { return !hasExact(p, "--check", "--diff") },
		readOpts:  []string{"--config"},
		writeOpts: nil,
	},
	"ruff": {
		opts: optSpec{exact: true, argShort: "o", argLong: []string{"--config", "--select", "--ignore", "--extend-select", "--extend-ignore",
			"--line-length", "--target-version", "--output-file", "--output-format", "--cache-dir", "--exclude",
			"--extend-exclude", "--per-file-ignores", "--extend-per-file-ignores", "--stdin-filename", "--fixable",
			"--unfixable", "--extend-fixable", "--dummy-variable-rgx", "--range"}},
		writes: func(p parsedArgs) bool {
			sub := ""
			if len(p.operands) > 0 {
				sub = p.operands[0].Text
			}
			fixes := hasExact(p, "--fix", "--unsafe-fixes", "--add-noqa") && !hasExact(p, "--no-fix", "--diff")
			return sub == "format" && !hasExact(p, "--check", "--diff") || fixes
		},
		writeOpts:  []string{"-o", "--output-file", "--cache-dir"},
		readOpts:   []string{"--config"},
		dotDefault: true,
		sub:        map[string]bool{"check": true, "format": true},
	},
	"prettier": {
		opts: optSpec{exact: true, argLong: []string{"--config", "--plugin", "--ignore-path", "--cache-location", "--cache-strategy",
			"--log-level", "--parser", "--print-width", "--tab-width", "--stdin-filepath", "--config-precedence",
			"--end-of-line", "--trailing-comma", "--arrow-parens", "--prose-wrap", "--quote-props",
			"--html-whitespace-sensitivity", "--embedded-language-formatting", "--cursor-offset", "--range-start",
			"--range-end", "--object-wrap", "--experimental-operator-position"}},
		writes:    func(p parsedArgs) bool { return hasExact(p, "-w", "--write") },
		writeOpts: []string{"--cache-location"},
		codeOpts:  []string{"--config", "--plugin"},
	},
	"eslint": {
		opts: optSpec{exact: true, argShort: "cfo", argLong: []string{"--config", "--env", "--ext", "--global", "--parser",
			"--parser-options", "--resolve-plugins-relative-to", "--rulesdir", "--plugin", "--rule", "--ignore-path",
			"--ignore-pattern", "--format", "--output-file", "--max-warnings", "--cache-location", "--cache-strategy",
			"--fix-type", "--stdin-filename", "--flag", "--report-unused-disable-directives-severity", "--concurrency"}},
		writes:     func(p parsedArgs) bool { return hasExact(p, "--fix") },
		writeOpts:  []string{"-o", "--output-file", "--cache-location"},
		codeOpts:   []string{"-c", "--config", "--rulesdir", "--plugin", "--resolve-plugins-relative-to", "-f", "--format", "--parser"},
		dotDefault: false,
	},
	"tsc": {
		opts: optSpec{exact: true, argShort: "pt", argLong: []string{"--project", "--outDir", "--outFile", "--declarationDir",
			"--tsBuildInfoFile", "--generateTrace", "--generateCpuProfile", "--target", "--module", "--lib",
			"--moduleResolution", "--jsx", "--rootDir", "--baseUrl", "--types", "--typeRoots"}},
		writes: func(p parsedArgs) bool {
			return !hasExact(p, "--noEmit") && len(p.values("--outDir", "--outFile")) == 0
		},
		writeOpts: []string{"--outDir", "--outFile", "--declarationDir", "--tsBuildInfoFile", "--generateTrace", "--generateCpuProfile"},
		readOpts:  []string{"-p", "--project"},
	},
	"mypy": {
		opts: optSpec{argShort: "mpc", argLong: []string{"--config-file", "--cache-dir", "--junit-xml", "--html-report",
			"--txt-report", "--xml-report", "--linecount-report", "--any-exprs-report", "--cobertura-xml-report",
			"--lineprecision-report", "--linecoverage-report", "--python-version", "--platform", "--module", "--package",
			"--command", "--exclude", "--follow-imports", "--python-executable", "--custom-typeshed-dir", "--shadow-file"}},
		writes: func(parsedArgs) bool { return false },
		writeOpts: []string{"--cache-dir", "--junit-xml", "--html-report", "--txt-report", "--xml-report",
			"--linecount-report", "--any-exprs-report", "--cobertura-xml-report", "--lineprecision-report", "--linecoverage-report"},
		codeOpts: []string{"--config-file", "--python-executable", "--custom-typeshed-dir"},
	},
}

// lintHandler runs the lintTools entry of a tool.
func lintHandler(name string) handler {
	t := lintTools[name]
	if t == nil {
		return nil
	}
	return func(w *walker, argv []Word, c cmdCtx) { w.lint(t, name, argv, c) }
}

func (w *walker) lint(t *lintTool, name string, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &t.opts)
	if p.dynamic {
		w.a.opaqueSrc(c.src, name+" has an argument of unknown value that could be an option that writes or loads code")
	}
	for _, o := range t.codeOpts {
		for _, v := range p.values(o) {
			if leavesDir(v) {
				w.a.opaqueSrc(c.src, name+" "+o+" loads code or configuration that is code from elsewhere: "+clip(v.Text))
			}
		}
	}
	for _, f := range p.values(t.readOpts...) {
		w.pathEffect(Read, f, name+" reads the file", c.src)
	}
	for _, f := range p.values(t.writeOpts...) {
		w.pathEffect(Write, f, name+" writes there", c.src)
	}
	ops := p.operands
	if len(ops) > 0 && t.sub[ops[0].Text] {
		ops = ops[1:]
	}
	if len(ops) == 0 && t.dotDefault {
		ops = []Word{{Text: "."}}
	}
	kind, reason := Read, name+" reads the file"
	if t.writes(p) {
		kind, reason = Write, name+" rewrites the file (a directory's files)"
	}
	for _, op := range ops {
		if strings.HasPrefix(op.Text, "-") && op.Text != "-" {
			continue
		}
		w.pathEffect(kind, op, reason, c.src)
	}
}

// hasExact reports an option spelled exactly as one of names (these tools
// take no abbreviations, and has() would read --fix as --fix-dry-run).
func hasExact(p parsedArgs, names ...string) bool {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}
