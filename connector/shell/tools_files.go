package shell

import "strings"

// chmodTool: chmod MODE FILE... (a mode may look like an option: -x).
func chmodTool(w *walker, argv []Word, c cmdCtx) {
	modeTaken := false
	for _, a := range argv[1:] {
		if !a.Dynamic && strings.HasPrefix(a.Text, "--reference") {
			modeTaken = true
		}
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		t := a.Text
		switch {
		case a.Dynamic:
		case t == "--":
			continue
		case strings.HasPrefix(t, "--"):
			continue
		case len(t) > 1 && t[0] == '-' && strings.Trim(t[1:], "cfvRh") == "":
			continue
		}
		if !modeTaken {
			modeTaken = true
			continue
		}
		w.pathEffect(Write, a, "chmod changes the file's mode", c.src)
	}
	if c.open {
		w.openOperands(roleWrite, "chmod", c)
	}
}

// ddTool: dd if=FILE of=FILE.
func ddTool(w *walker, argv []Word, c cmdCtx) {
	for _, a := range argv[1:] {
		key, val, ok := strings.Cut(a.Text, "=")
		word := Word{Text: val, Dynamic: a.Dynamic}
		switch {
		case a.Dynamic && !ok:
			w.a.opaqueSrc(c.src, "dd has an operand of unknown value")
		case key == "of":
			w.pathEffect(Write, word, "dd writes the file", c.src)
		case key == "if":
			w.pathEffect(Read, word, "dd reads the file", c.src)
		}
	}
}

// lessTool: +commands and lesskey files can run shell commands; -o logs.
func lessTool(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "bhjkoOpPtTxyz#", argLong: []string{"--log-file", "--LOG-FILE", "--lesskey-file", "--lesskey-src", "--pattern", "--prompt", "--tag", "--tag-file"}}
	p := parseArgs(argv[1:], &spec)
	if p.has("-k", "--lesskey-file", "--lesskey-src") {
		w.a.opaqueSrc(c.src, "less key bindings can run shell commands")
	}
	for _, f := range p.values("-o", "-O", "--log-file", "--LOG-FILE") {
		w.pathEffect(Write, f, "less writes its log", c.src)
	}
	for _, f := range p.operands {
		if strings.HasPrefix(f.Text, "+") || f.Dynamic {
			w.a.opaqueSrc(c.src, "less runs initial commands, which can include shell escapes")
			continue
		}
		w.pathEffect(Read, f, "less reads the file", c.src)
	}
}

// compressTool: gzip and friends replace their operands unless they
// write to stdout, test or list.
func compressTool(w *walker, argv []Word, c cmdCtx) {
	name := baseName(argv[0].Text)
	p := parseArgs(argv[1:], &optSpec{argShort: "SbT", argLong: []string{"--suffix", "--threads"}})
	kind, reason := Write, name+" replaces the file"
	if p.has("-c", "--stdout", "--to-stdout", "-t", "--test", "-l", "--list") {
		kind, reason = Read, name+" reads the file"
	}
	w.each(kind, p.operands, reason, c)
}

// patchTool: patch writes the files named in the patch (unknown here).
func patchTool(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "oirdpBFzDVY", argLong: []string{"--output", "--input", "--reject-file", "--directory", "--strip", "--prefix", "--fuzz", "--suffix", "--ifdef", "--version-control", "--basename-prefix"}}
	p := parseArgs(argv[1:], &spec)
	for _, f := range p.values("-i", "--input") {
		w.pathEffect(Read, f, "patch reads the patch", c.src)
	}
	if p.has("--dry-run", "-C", "--check") {
		return
	}
	for _, f := range p.values("-o", "--output", "-r", "--reject-file") {
		w.pathEffect(Write, f, "patch writes the file", c.src)
	}
	if len(p.operands) > 0 {
		w.pathEffect(Write, p.operands[0], "patch edits the file", c.src)
		w.each(Read, p.operands[1:], "patch reads the patch", c)
		return
	}
	dir := "."
	if d := p.values("-d", "--directory"); len(d) > 0 {
		dir = d[0].Text
	}
	reloc, _ := w.cwd.relocate(dir)
	w.a.add(Effect{Kind: Write, Path: reloc, Dynamic: true, Reason: "patch writes the files named in the patch", Source: c.src})
}

// unzipTool: unzip writes the archive's members (names unknown).
func unzipTool(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &optSpec{argShort: "dxP"})
	if len(p.operands) > 0 {
		w.pathEffect(Read, p.operands[0], "unzip reads the archive", c.src)
	}
	if p.has("-l", "-t", "-v", "-Z", "-z", "-p") {
		return
	}
	dir := "."
	if d := p.values("-d"); len(d) > 0 {
		dir = d[0].Text
	}
	reloc, _ := w.cwd.relocate(dir)
	w.a.add(Effect{Kind: Write, Path: reloc, Dynamic: true, Reason: "unzip writes the archive's members under the directory", Source: c.src})
}
