package shell

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// analyzer collects the effects of one Analyze call, across nested shells.
type analyzer struct {
	opts      Options
	effects   []Effect
	full      bool // MaxEffects reached; further effects are dropped
	work      int  // units of work spent (nodes, word bytes, matches)
	exhausted bool // maxWork reached: the walk stopped
}

// maxWork bounds the total work of one analysis, whatever the input.
const maxWork = 1 << 22

// spend counts work; false once the budget is gone (reported once).
func (a *analyzer) spend(n int, src string) bool {
	a.work += n
	if a.work <= maxWork {
		return true
	}
	if !a.exhausted {
		a.exhausted = true
		a.opaqueSrc(src, "script too costly to analyse")
	}
	return false
}

func newAnalyzer(opts Options) *analyzer {
	return &analyzer{opts: opts, effects: make([]Effect, 0, 2)}
}

// add appends e unless the cap is reached; the effect that reaches the cap
// is replaced by an Opaque one so the caller escalates.
func (a *analyzer) add(e Effect) {
	if a.full {
		return
	}
	if len(a.effects) >= MaxEffects-1 {
		a.full = true
		e = Effect{Kind: Opaque, Reason: "too many effects", Source: e.Source}
	}
	a.effects = append(a.effects, e)
}

func (a *analyzer) opaqueSrc(src, reason string) {
	a.add(Effect{Kind: Opaque, Reason: reason, Source: src})
}

// clip bounds an excerpt kept in an Effect.
func clip(s string) string {
	if len(s) <= maxSource {
		return s
	}
	cut := maxSource
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// unsafeText reports invalid UTF-8, control characters other than tab and
// newline, and invisible or bidirectional format characters, which can hide
// what a script does from the human who reads it.
func unsafeText(s string) (bool, string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\t' || c == '\n' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return true, "invalid UTF-8"
		}
		if r < 0x20 || r >= 0x7f && r < 0xa0 {
			return true, "control character " + runeCode(r)
		}
		if unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029 {
			return true, "invisible or bidirectional character " + runeCode(r)
		}
		i += size
	}
	return false, ""
}

func runeCode(r rune) string {
	h := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	for len(h) < 4 {
		h = "0" + h
	}
	return "U+" + h
}
