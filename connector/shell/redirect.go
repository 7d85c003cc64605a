package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirects walks the redirections of a statement: writes, reads, network
// (/dev/tcp, /dev/udp), and here-documents.
func (w *walker) redirects(s *syntax.Stmt, d int) {
	for _, r := range s.Redirs {
		w.redirect(r, d)
	}
}

func (w *walker) redirect(r *syntax.Redirect, d int) {
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		// {var}>file assigns a file descriptor number to var.
		w.assignName(strings.Trim(r.N.Value, "{}"), r.N, true)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		w.heredoc(r, d)
	case syntax.WordHdoc:
		w.word(r.Word, d, true)
	case syntax.DplIn, syntax.DplOut:
		w.dupRedirect(r, d)
	case syntax.RdrIn:
		w.redirTarget(r, Read, d)
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
		syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
		w.redirTarget(r, Write, d)
	default:
		w.opaque(r, "redirection not understood")
	}
}

// heredoc walks a here-document: an unquoted one expands its body, running
// any command substitution in it. The body is data, not words: a command
// that turns it into names (xargs rm, while read f; do rm "$f") has
// dynamic operands, which escalate.
func (w *walker) heredoc(r *syntax.Redirect, d int) {
	w.word(r.Word, d, false)
	if r.Hdoc == nil {
		return
	}
	for _, p := range r.Hdoc.Parts {
		w.wordPart(p, d)
	}
}

// dupRedirect handles >&N, <&N, >&- and the bash form >&FILE (stdout and
// stderr to FILE).
func (w *walker) dupRedirect(r *syntax.Redirect, d int) {
	v := w.word(r.Word, d, true)
	if lit, ok := v.literal(); ok && isFdWord(lit) {
		return
	}
	if r.Op == syntax.DplIn {
		w.redirPath(r, &v, Read)
		return
	}
	w.redirPath(r, &v, Write)
}

func isFdWord(s string) bool {
	s = strings.TrimSuffix(s, "-")
	if s == "" {
		return true // >&- closes
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func (w *walker) redirTarget(r *syntax.Redirect, kind Kind, d int) {
	if len(r.Word.Parts) == 1 {
		if ps, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
			w.subshell(ps.Stmts, d) // a pipe to or from commands, not a file
			return
		}
	}
	v := w.word(r.Word, d, true)
	w.redirPath(r, &v, kind)
}

// redirPath adds the effect of redirecting to the evaluated target v.
func (w *walker) redirPath(r *syntax.Redirect, v *wordVal, kind Kind) {
	reason := "redirection " + r.Op.String()
	src := partSource(w.src, r)
	for _, word := range v.appendWords(nil) {
		if host, ok := netDevice(word); ok {
			w.a.add(Effect{Kind: Network, Host: host, Dynamic: word.Dynamic, Reason: reason + " to " + word.Text, Source: src})
			continue
		}
		w.pathEffect(kind, word, reason, src)
	}
}

// netDevice recognises bash's /dev/tcp/HOST/PORT and /dev/udp/HOST/PORT.
func netDevice(word Word) (string, bool) {
	t := word.Text
	for _, dev := range []string{"/dev/tcp/", "/dev/udp/"} {
		if strings.HasPrefix(t, dev) {
			host, port, _ := strings.Cut(t[len(dev):], "/")
			return host + ":" + port, true
		}
	}
	if word.Dynamic && (strings.Contains(t, "/dev/tcp") || strings.Contains(t, "/dev/udp")) {
		return t, true
	}
	return "", false
}
