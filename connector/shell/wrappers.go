package shell

import "strings"

// wrapSpec describes a wrapper that runs the command after its options
// and a fixed number of leading operands.
type wrapSpec struct {
	opts      optSpec
	known     string // every option it understands, space-separated ("-n --adjustment")
	leading   int    // operands before the command (timeout's DURATION)
	digitOpts bool   // -NUM options (nice -10)
	noCmd     string // options after which there is no command (ionice -p)
}

var wrapSpecs = map[string]*wrapSpec{
	"nice":       {opts: optSpec{argShort: "n", argLong: []string{"--adjustment"}}, known: "-n --adjustment", digitOpts: true},
	"nohup":      {},
	"timeout":    {opts: optSpec{argShort: "sk", argLong: []string{"--signal", "--kill-after"}}, known: "-s -k -v -p --signal --kill-after --verbose --preserve-status --foreground", leading: 1},
	"stdbuf":     {opts: optSpec{argShort: "ioe", argLong: []string{"--input", "--output", "--error"}}, known: "-i -o -e --input --output --error"},
	"setsid":     {known: "-c -f -w --ctty --fork --wait"},
	"ionice":     {opts: optSpec{argShort: "cnpPu", argLong: []string{"--class", "--classdata", "--pid", "--pgid", "--uid"}}, known: "-c -n -p -P -u -t --class --classdata --pid --pgid --uid --ignore", noCmd: "-p -P -u --pid --pgid --uid"},
	"taskset":    {opts: optSpec{argShort: "c"}, known: "-a -c -p --all-tasks --cpu-list --pid", leading: 1, noCmd: "-p --pid"},
	"chrt":       {opts: optSpec{argShort: "TPD"}, known: "-a -b -d -e -f -i -o -r -m -v -R -T -P -D --all-tasks --batch --deadline --ext --fifo --idle --other --rr --max --verbose --reset-on-fork --sched-runtime --sched-period --sched-deadline", leading: 1, noCmd: "-p --pid -m --max"},
	"unbuffer":   {known: "-p"},
	"caffeinate": {opts: optSpec{argShort: "tw"}, known: "-d -i -m -s -u -t -w"},
	"doas":       {opts: optSpec{argShort: "uC"}, known: "-n -s -u -C -L", noCmd: "-s -C -L"},
}

// wrapperHandler returns the handler of a command that runs another
// command (after options of its own), or nil.
func wrapperHandler(name string) handler {
	switch name {
	case "env":
		return envWrapper
	case "xargs":
		return xargsWrapper
	case "watch":
		return watchWrapper
	case "sudo", "sudoedit":
		return sudoWrapper
	case "flock":
		return flockWrapper
	case "time":
		return timeWrapper
	case "busybox", "toybox":
		return busyboxWrapper
	case "chroot", "sg":
		return opaqueWrapper
	case "su", "runuser":
		return suWrapper
	case "script":
		return scriptWrapper
	}
	switch {
	case wrapSpecs[name] != nil:
		return specWrapper
	case posixShells[name]:
		return shellWrapper
	}
	return nil
}

// specWrapper unwraps a wrapper described by wrapSpecs.
func specWrapper(w *walker, argv []Word, c cmdCtx) {
	name := baseName(argv[0].Text)
	s := wrapSpecs[name]
	if name == "doas" {
		w.exec(argv, c) // escalates by itself
	}
	spec := s.opts
	spec.posixStop = true
	p := parseArgs(argv[1:], &spec)
	if bad, ok := s.unknownOption(p); ok {
		w.exec(argv, c)
		w.a.opaqueSrc(c.src, name+" option not understood: "+bad)
		return
	}
	if s.noCmd != "" && p.hasAny(strings.Fields(s.noCmd)) {
		w.exec(argv, c)
		return
	}
	cmd := p.operands
	if len(cmd) <= s.leading {
		w.exec(argv, c)
		return
	}
	w.run(cmd[s.leading:], c.wrapped(name))
}

func (s *wrapSpec) unknownOption(p parsedArgs) (string, bool) {
	for _, o := range p.opts {
		if s.digitOpts && strings.Trim(o.name, "-0123456789") == "" {
			continue
		}
		if !knownOption(s.known, o.name) {
			return o.name, true
		}
	}
	return "", false
}

// knownOption reports whether name (possibly an abbreviated long option)
// is in the space-separated list.
func knownOption(list, name string) bool {
	for _, k := range strings.Fields(list) {
		if k == name || strings.HasPrefix(name, "--") && strings.HasPrefix(k, "--") && longIs(name, k) {
			return true
		}
	}
	return false
}

func (p *parsedArgs) hasAny(names []string) bool { return p.has(names...) }

func opaqueWrapper(w *walker, argv []Word, c cmdCtx) {
	w.exec(argv, c)
	w.a.opaqueSrc(c.src, argv[0].Text+" runs a command in a way that cannot be analysed")
}

// busyboxWrapper: busybox APPLET ARGS runs APPLET.
func busyboxWrapper(w *walker, argv []Word, c cmdCtx) {
	if len(argv) < 2 || argv[1].Dynamic || strings.HasPrefix(argv[1].Text, "-") {
		w.exec(argv, c)
		if len(argv) >= 2 && argv[1].Dynamic {
			w.a.opaqueSrc(c.src, "busybox applet is not literal")
		}
		return
	}
	w.run(argv[1:], c.wrapped(baseName(argv[0].Text)))
}

// timeWrapper: the time program (not the keyword); -o FILE writes FILE.
func timeWrapper(w *walker, argv []Word, c cmdCtx) {
	spec := optSpec{argShort: "of", argLong: []string{"--output", "--format"}, posixStop: true}
	p := parseArgs(argv[1:], &spec)
	for _, o := range p.opts {
		if !knownOption("-o -f -p -v -q -a --output --format --portability --verbose --quiet --append", o.name) {
			w.exec(argv, c)
			w.a.opaqueSrc(c.src, "time option not understood: "+o.name)
			return
		}
	}
	for _, f := range p.values("-o", "--output") {
		w.pathEffect(Write, f, "time -o writes its report", c.src)
	}
	if len(p.operands) == 0 {
		w.exec(argv, c)
		return
	}
	w.run(p.operands, c.wrapped("time"))
}
