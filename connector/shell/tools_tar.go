package shell

import "strings"

var tarSpec = optSpec{
	argShort: "fCTXbLNgKVFIH",
	argLong: []string{"--file", "--directory", "--files-from", "--exclude-from", "--blocking-factor",
		"--tape-length", "--newer", "--after-date", "--listed-incremental", "--starting-file", "--label",
		"--info-script", "--new-volume-script", "--use-compress-program", "--format", "--to-command",
		"--checkpoint-action", "--rsh-command", "--rmt-command", "--owner", "--group", "--mode", "--mtime",
		"--exclude", "--transform", "--xform", "--index-file", "--volno-file", "--strip-components"},
}

var tarOpaque = []string{
	"--to-command pipes members to a command", "--checkpoint-action can run a command",
	"--use-compress-program runs a program", "-I runs a compression program",
	"--info-script runs a script", "--new-volume-script runs a script", "-F runs a script",
	"--rsh-command runs a program", "--rmt-command runs a program",
}

// tarTool: creating writes the archive; extracting writes members under
// the target directory (names unknown: Dynamic); programs escalate.
func tarTool(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(tarArgs(argv[1:]), &tarSpec)
	if p.dynamic {
		w.a.opaqueSrc(c.src, "tar has an argument of unknown value that could be a dangerous option")
		return
	}
	for _, entry := range tarOpaque {
		opt, reason, _ := strings.Cut(entry, " ")
		if p.has(opt) {
			w.a.opaqueSrc(c.src, "tar "+opt+" "+reason)
		}
	}
	archives := p.values("-f", "--file")
	for _, f := range archives {
		if strings.Contains(f.Text, ":") && !p.has("--force-local") {
			w.a.opaqueSrc(c.src, "tar archive "+f.Text+" is on a remote host (rsh)")
		}
	}
	for _, f := range p.values("-T", "--files-from", "-X", "--exclude-from") {
		w.pathEffect(Read, f, "tar reads the list", c.src)
	}
	for _, f := range p.values("-g", "--listed-incremental", "--index-file") {
		w.pathEffect(Write, f, "tar writes the file", c.src)
	}
	w.tarMode(p, archives, c)
}

func (w *walker) tarMode(p parsedArgs, archives []Word, c cmdCtx) {
	switch {
	case p.has("-c", "--create", "-r", "--append", "-u", "--update", "-A", "--catenate", "--concatenate", "--delete"):
		w.each(Write, archives, "tar writes the archive", c)
		for _, f := range p.operands {
			w.readTree(f, "tar reads the file (a directory whole) into the archive", c.src)
		}
	case p.has("-x", "--extract", "--get"):
		w.each(Read, archives, "tar reads the archive", c)
		dir := Word{Text: "."}
		if dirs := p.values("-C", "--directory"); len(dirs) > 0 {
			dir = dirs[len(dirs)-1]
		}
		reloc, _ := w.cwd.relocate(dir.Text)
		w.a.add(Effect{Kind: Write, Path: reloc, Dynamic: true, Reason: "tar -x writes the archive's members under the directory", Source: c.src})
	default:
		w.each(Read, archives, "tar reads the archive", c)
	}
}

// tarArgs turns the old form "tar xzf FILE" into "tar -x -z -f FILE".
func tarArgs(args []Word) []Word {
	if len(args) == 0 || args[0].Dynamic || strings.HasPrefix(args[0].Text, "-") {
		return args
	}
	out := make([]Word, 0, len(args)+4)
	rest := args[1:]
	for i := 0; i < len(args[0].Text); i++ {
		ch := args[0].Text[i]
		out = append(out, Word{Text: "-" + string(ch)})
		if strings.IndexByte(tarSpec.argShort, ch) >= 0 && len(rest) > 0 {
			out = append(out, rest[0])
			rest = rest[1:]
		}
	}
	return append(out, rest...)
}
