package policy

import (
	"path"
	"strings"
)

// maxPatternWords bounds a shell pattern so that the matcher's state set
// fits in a uint64.
const maxPatternWords = 63

// tokKind is the kind of one word of a shell pattern.
type tokKind uint8

const (
	tokLit  tokKind = iota // a literal word (or a word glob)
	tokOne                 // '*': exactly one word
	tokRest                // '**': zero or more words
)

type argvTok struct {
	kind tokKind
	w    *wildcard // tokLit: the word (literal or glob)
}

// argvPattern is a compiled shell rule: a command name and a sequence of
// word tokens, matched against the literal argv of a simple command.
type argvPattern struct {
	name     *wildcard // the command name, exact case
	nameFold *wildcard // lower-cased, for deny and escalate rules
	nameLit  string    // the literal name when it has no wildcard
	hasSlash bool      // the name is a path (./gradlew, /usr/bin/rm)
	local    bool      // the name is ./**: any program below the working directory
	toks     []argvTok
	rest     uint64 // bit i set when toks[i] is '**'
}

// compileArgv compiles a shell pattern such as `git push *` or
// `npm run **`. Words are split on blanks; single and double quotes and
// backslashes quote as in the shell, so `'*'` is a literal star.
func compileArgv(pat string) (*argvPattern, error) {
	words, err := splitPattern(pat)
	if err != nil {
		return nil, err
	}
	if len(words) == 0 {
		return nil, errorf("empty shell pattern")
	}
	if len(words) > maxPatternWords+1 {
		return nil, errorf("shell pattern has more than %d words", maxPatternWords)
	}
	p := &argvPattern{}
	if err := p.setName(words[0]); err != nil {
		return nil, err
	}
	for _, w := range words[1:] {
		t, err := compileTok(w)
		if err != nil {
			return nil, err
		}
		if t.kind == tokRest {
			p.rest |= 1 << len(p.toks)
		}
		p.toks = append(p.toks, t)
	}
	return p, nil
}

func (p *argvPattern) setName(w patWord) error {
	if w.glob == localPrograms {
		// Any program given as a path below the working directory.
		p.local, p.hasSlash, p.nameLit = true, true, localPrograms
		p.name, _ = compileWildcard("*")
		p.nameFold = p.name
		return nil
	}
	if w.glob == "*" || w.glob == "**" {
		return errorf("the command name must be a word, not %q", w.glob)
	}
	var err error
	if p.name, err = compileWildcard(w.glob); err != nil {
		return err
	}
	if folded := foldName(w.glob); folded == w.glob {
		p.nameFold = p.name
	} else if p.nameFold, err = compileWildcard(folded); err != nil {
		return err
	}
	lit, isLit := p.name.isLiteral()
	if isLit && lit == "" {
		return errorf("empty command name")
	}
	p.hasSlash = strings.Contains(w.glob, "/")
	if p.hasSlash {
		if !isLit {
			return errorf("a command path cannot contain wildcards: %q", w.glob)
		}
		lit = path.Clean(lit)
	}
	p.nameLit = lit
	return nil
}

func compileTok(w patWord) (argvTok, error) {
	switch w.glob {
	case "*":
		return argvTok{kind: tokOne}, nil
	case "**":
		return argvTok{kind: tokRest}, nil
	}
	wc, err := compileWildcard(w.glob)
	if err != nil {
		return argvTok{}, err
	}
	return argvTok{kind: tokLit, w: wc}, nil
}

// patWord is one word of a pattern in glob form: quoted characters that
// are special to wildcard ('*', '?', '\') are escaped with a backslash.
type patWord struct {
	glob string
}

// splitPattern splits a shell pattern into words the way the shell would
// split a line of literal words: blanks separate, quotes and backslashes
// quote. Unquoted '*' and '?' stay wildcards; quoted ones are escaped.
func splitPattern(s string) ([]patWord, error) {
	if !strings.ContainsAny(s, "\\'\"") && isPrintableASCII(s) {
		f := strings.Fields(s)
		words := make([]patWord, len(f))
		for i, w := range f {
			words[i] = patWord{glob: w}
		}
		return words, nil
	}
	var words []patWord
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, patWord{glob: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case c == '\\':
			if i+1 == len(s) {
				return nil, errorf("trailing backslash in %q", s)
			}
			i++
			writeQuoted(&cur, s[i])
			inWord = true
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, errorf("unterminated quote in %q", s)
			}
			for k := i + 1; k <= i+j; k++ {
				writeQuoted(&cur, s[k])
			}
			i += j + 1
			inWord = true
		case c < 0x20 || c == 0x7f:
			return nil, errorf("control character in %q", s)
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, nil
}

func writeQuoted(b *strings.Builder, c byte) {
	if c == '*' || c == '?' || c == '\\' {
		b.WriteByte('\\')
	}
	b.WriteByte(c)
}

// isPrintableASCII reports text without control or non-ASCII bytes.
func isPrintableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}
