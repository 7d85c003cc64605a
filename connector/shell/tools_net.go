package shell

import (
	"strings"
)

var curlSpec = optSpec{
	argShort: "oDcTKbdFHAeEXuxyYzmrwCUQtRhE",
	argLong: []string{"--output", "--dump-header", "--cookie-jar", "--upload-file", "--config", "--cookie",
		"--data", "--data-binary", "--data-raw", "--data-ascii", "--data-urlencode", "--form", "--json",
		"--header", "--user-agent", "--referer", "--cert", "--request", "--user", "--proxy", "--url",
		"--output-dir", "--trace", "--trace-ascii", "--stderr", "--max-time", "--connect-timeout",
		"--retry", "--range", "--write-out", "--continue-at", "--proxy-user", "--quote", "--cacert",
		"--netrc-file", "--etag-save", "--etag-compare", "--resolve", "--connect-to", "--interface", "--libcurl"},
}

// curlTool: files written (-o, -O), read (-T, @file), and hosts reached.
func curlTool(w *walker, argv []Word, c cmdCtx) {
	p := parseArgs(argv[1:], &curlSpec)
	if p.has("-K", "--config") {
		w.a.opaqueSrc(c.src, "curl -K reads options from a file")
	}
	for _, f := range p.values("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--stderr", "--etag-save", "--libcurl") {
		if f.Text != "-" {
			w.pathEffect(Write, f, "curl writes the file", c.src)
		}
	}
	if p.has("-O", "--remote-name", "--remote-name-all", "-J") {
		dir := Word{Text: "."}
		if d := p.values("--output-dir"); len(d) > 0 {
			dir = d[0]
		}
		w.a.add(Effect{Kind: Write, Path: dir.Text, Dynamic: true, Reason: "curl -O writes a file named by the server", Source: c.src})
	}
	for _, f := range p.values("-T", "--upload-file", "--netrc-file") {
		w.pathEffect(Read, f, "curl reads the file", c.src)
	}
	for _, d := range p.values("-d", "--data", "--data-binary", "--data-ascii", "--data-urlencode", "-F", "--form", "--json") {
		if i := strings.IndexByte(d.Text, '@'); i >= 0 && !d.Dynamic {
			w.pathEffect(Read, Word{Text: strings.SplitN(d.Text[i+1:], ";", 2)[0]}, "curl uploads the file", c.src)
		}
	}
	w.urlHosts(append(p.operands, p.values("--url")...), "curl", c)
}

// wgetTool: wget writes downloads (names from the server), logs, cookies.
func wgetTool(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "OoaPieTtwUQ", argLong: []string{"--output-document", "--output-file", "--append-output", "--directory-prefix", "--input-file", "--execute", "--post-file", "--body-file", "--load-cookies", "--save-cookies", "--user-agent", "--header", "--timeout", "--tries", "--wait", "--quota", "--user", "--password"}}
	p := parseArgs(argv[1:], &spec)
	if p.has("-e", "--execute") {
		w.a.opaqueSrc(c.src, "wget -e runs wgetrc commands")
	}
	out := p.values("-O", "--output-document")
	for _, f := range append(out, p.values("-o", "--output-file", "-a", "--append-output", "--save-cookies")...) {
		if f.Text != "-" {
			w.pathEffect(Write, f, "wget writes the file", c.src)
		}
	}
	if len(out) == 0 && !p.has("--spider") {
		dir := "."
		if d := p.values("-P", "--directory-prefix"); len(d) > 0 {
			dir = d[0].Text
		}
		w.a.add(Effect{Kind: Write, Path: dir, Dynamic: true, Reason: "wget writes files named by the server", Source: c.src})
	}
	for _, f := range p.values("-i", "--input-file", "--post-file", "--body-file", "--load-cookies") {
		w.pathEffect(Read, f, "wget reads the file", c.src)
	}
	w.urlHosts(p.operands, "wget", c)
}

// rsyncTool: -e/--rsh and --rsync-path run programs; the destination is
// written, local sources read, remote ends reached over the network.
func rsyncTool(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "efTBM", argLong: []string{"--rsh", "--rsync-path", "--filter", "--temp-dir", "--block-size", "--remote-option", "--files-from", "--exclude-from", "--include-from", "--log-file", "--write-batch", "--only-write-batch", "--read-batch", "--exclude", "--include", "--password-file", "--port", "--chmod", "--chown", "--backup-dir", "--suffix", "--compare-dest", "--copy-dest", "--link-dest", "--partial-dir"}}
	p := parseArgs(argv[1:], &spec)
	for _, bad := range []string{"-e", "--rsh", "--rsync-path", "-M", "--remote-option"} {
		if p.has(bad) {
			w.a.opaqueSrc(c.src, "rsync "+bad+" runs a program")
		}
	}
	for _, f := range p.values("--files-from", "--exclude-from", "--include-from", "--read-batch", "--password-file") {
		w.pathEffect(Read, f, "rsync reads the file", c.src)
	}
	for _, f := range p.values("--log-file", "--write-batch", "--only-write-batch") {
		w.pathEffect(Write, f, "rsync writes the file", c.src)
	}
	for i, op := range p.operands {
		kind := Read
		if i == len(p.operands)-1 && i > 0 {
			kind = Write
		}
		if host, remote := rsyncRemote(op); remote {
			w.a.add(Effect{Kind: Network, Host: host, Dynamic: op.Dynamic, Reason: "rsync reaches the host", Source: c.src})
			continue
		}
		w.pathEffect(kind, op, "rsync copies the file", c.src)
	}
}

// rsyncRemote reports HOST:PATH, USER@HOST:PATH and rsync://HOST/...
func rsyncRemote(op Word) (string, bool) {
	t := op.Text
	if strings.HasPrefix(t, "rsync://") {
		host, _, _ := strings.Cut(t[len("rsync://"):], "/")
		return host, true
	}
	colon := strings.IndexByte(t, ':')
	slash := strings.IndexByte(t, '/')
	if colon > 0 && (slash < 0 || colon < slash) {
		host := t[:colon]
		if at := strings.LastIndexByte(host, '@'); at >= 0 {
			host = host[at+1:]
		}
		return host + ":22", true
	}
	return "", false
}

// urlHosts adds a Network effect for each URL operand.
func (w *walker) urlHosts(ops []Word, tool string, c cmdCtx) {
	for _, op := range ops {
		host, ok := urlHost(op.Text)
		if op.Dynamic {
			host, ok = op.Text, true
		}
		if ok {
			w.a.add(Effect{Kind: Network, Host: host, Dynamic: op.Dynamic, Reason: tool + " reaches the host", Source: c.src})
		}
	}
}

var defaultPorts = map[string]string{"http": "80", "https": "443", "ftp": "21", "ftps": "990", "sftp": "22", "scp": "22", "ws": "80", "wss": "443"}

// urlHost returns host:port of scheme://[user@]host[:port]/..., or of a
// bare host[/path] (curl and wget assume http).
func urlHost(u string) (string, bool) {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		scheme, rest = "http", u
		if rest == "" || strings.HasPrefix(rest, "-") || strings.HasPrefix(rest, "/") || !strings.Contains(strings.SplitN(rest, "/", 2)[0], ".") {
			return "", false
		}
	}
	hostport := rest
	if i := strings.IndexAny(hostport, "/?#"); i >= 0 {
		hostport = hostport[:i]
	}
	if at := strings.LastIndexByte(hostport, '@'); at >= 0 {
		hostport = hostport[at+1:]
	}
	if hostport == "" {
		return "", false
	}
	if strings.LastIndexByte(hostport, ':') > strings.LastIndexByte(hostport, ']') {
		return strings.ToLower(hostport), true
	}
	port := defaultPorts[strings.ToLower(scheme)]
	if port == "" {
		port = "0"
	}
	return strings.ToLower(hostport) + ":" + port, true
}
