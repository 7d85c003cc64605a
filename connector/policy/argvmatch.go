package policy

import (
	"math/bits"
	"path"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// matchKind is how a pattern matched an argv.
type matchKind uint8

const (
	noMatch      matchKind = iota
	matchExact             // every word was literal where the pattern looked
	matchDynamic           // only by letting dynamic words fill the gaps
)

// matchAllow matches an argv for an allow rule: the name must be the
// literal word the rule spells, dynamic words can only be absorbed by
// '**' (then the match is matchDynamic), and a command that is open-ended
// (xargs) needs a trailing '**'. afterCD reports that the script changes
// directory, so a relative path such as ./gradlew is not the project's.
func (p *argvPattern) matchAllow(args []shell.Word, openEnded, afterCD bool) matchKind {
	if len(args) == 0 || args[0].Dynamic || !p.allowName(args[0].Text, afterCD) {
		return noMatch
	}
	return p.walk(args[1:], openEnded, false)
}

// matchMay matches an argv for a deny or escalate rule, failing closed:
// the name matches case-insensitively, by base name and without a Windows
// executable suffix; a dynamic word may stand for any number of words, and
// such a possible match is matchDynamic.
func (p *argvPattern) matchMay(args []shell.Word, openEnded bool) matchKind {
	if len(args) == 0 || args[0].Dynamic || !p.mayName(args[0].Text) {
		return noMatch
	}
	return p.walk(args[1:], openEnded, true)
}

func (p *argvPattern) allowName(name string, afterCD bool) bool {
	if p.local {
		return hasSep(name) && !afterCD && isLocalPath(name)
	}
	if hasSep(name) {
		if !p.hasSlash || (afterCD && !path.IsAbs(name)) {
			return false
		}
		return path.Clean(name) == p.nameLit
	}
	return !p.hasSlash && p.name.match(name)
}

func (p *argvPattern) mayName(name string) bool {
	folded := foldCommand(name)
	if p.local {
		return hasSep(folded) && isLocalPath(folded)
	}
	if p.hasSlash {
		rule := foldName(p.nameLit)
		return path.Clean(folded) == rule || baseName(folded) == baseName(rule)
	}
	return p.nameFold.match(folded) || p.nameFold.match(baseName(folded))
}

// walk runs the pattern's word automaton over args. States are pattern
// positions (bit i: "before token i"; bit n: "matched"). clean holds the
// states reached through literal words only, dirty those that needed a
// dynamic word.
func (p *argvPattern) walk(args []shell.Word, openEnded, may bool) matchKind {
	n := len(p.toks)
	accept := uint64(1) << n
	clean, dirty := p.closure(1), uint64(0)
	for _, a := range args {
		if clean|dirty == 0 {
			return noMatch
		}
		if a.Dynamic && a.Glob && may {
			clean, dirty = p.stepGlob(clean, dirty, a.Text)
			continue
		}
		if a.Dynamic {
			clean, dirty = p.stepDynamic(clean, dirty, may)
			continue
		}
		clean, dirty = p.step(clean, a.Text), p.step(dirty, a.Text)
	}
	if openEnded {
		clean, dirty = p.stepDynamic(clean, dirty, may)
	}
	switch {
	case clean&accept != 0:
		return matchExact
	case dirty&accept != 0:
		return matchDynamic
	}
	return noMatch
}

// step consumes one literal word.
func (p *argvPattern) step(set uint64, word string) uint64 {
	var next uint64
	for set != 0 {
		i := bits.TrailingZeros64(set)
		set &^= 1 << i
		if i >= len(p.toks) {
			continue
		}
		switch t := p.toks[i]; t.kind {
		case tokRest:
			next |= 1 << i
		case tokOne:
			next |= 1 << (i + 1)
		case tokLit:
			if t.w.match(word) {
				next |= 1 << (i + 1)
			}
		}
	}
	return p.closure(next)
}

// stepDynamic consumes a word whose value is unknown. '**' absorbs it for
// sure (it stays clean only in may mode, where the rule is a deny or
// escalate and absorbing is certain); for a may-match it may also stand
// for any words at all, reaching every later state.
func (p *argvPattern) stepDynamic(clean, dirty uint64, may bool) (uint64, uint64) {
	rest := p.rest
	if !may {
		return 0, p.closure((clean | dirty) & rest)
	}
	all := clean | dirty
	var up uint64
	if all != 0 {
		low := bits.TrailingZeros64(all)
		up = ^uint64(0) << low & (uint64(1)<<(len(p.toks)+1) - 1)
	}
	return p.closure(clean & rest), up
}

// closure adds the states reachable by letting '**' match nothing.
func (p *argvPattern) closure(set uint64) uint64 {
	for r := p.rest; r != 0; r &= r - 1 {
		if i := bits.TrailingZeros64(r); set&(1<<i) != 0 {
			set |= 1 << (i + 1)
		}
	}
	return set
}

func hasSep(name string) bool { return strings.ContainsAny(name, `/\`) }

func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		return name[i+1:]
	}
	return name
}

// foldCommand lower-cases a command name and drops what Windows ignores
// or adds when it looks a program up: trailing dots and spaces and the
// .exe/.com/.bat/.cmd suffix. Only deny and escalate rules use it.
func foldCommand(name string) string {
	s := strings.TrimRight(foldName(strings.ReplaceAll(name, `\`, "/")), ". ")
	for _, ext := range []string{".exe", ".com", ".bat", ".cmd"} {
		if strings.HasSuffix(s, ext) && len(s) > len(ext) {
			return s[:len(s)-len(ext)]
		}
	}
	return s
}

// localPrograms is the command name of a rule for every program given as
// a relative path that stays below the working directory (./scripts/x,
// bin/app, .venv/bin/python): the project's own programs, when the
// working directory is the project. A path that climbs out (../x) or
// starts at / or ~ is not one; neither is any name after a cd.
const localPrograms = "./**"

func isLocalPath(name string) bool {
	name = strings.ReplaceAll(name, `\`, "/")
	if path.IsAbs(name) || strings.HasPrefix(name, "~") || len(name) > 1 && name[1] == ':' {
		return false
	}
	c := path.Clean(name)
	return c != "." && c != ".." && !strings.HasPrefix(c, "../")
}
