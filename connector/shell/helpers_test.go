package shell

import (
	"strings"
)

var testOpts = Options{Protected: []string{".sandbox"}}

// brief renders an effect compactly for table tests:
//
//	exec git status        (dynamic words as ~{text}, open-ended with " …")
//	write out.txt          (dynamic paths as ~{path})
//	read f / net host:port / opaque / protected PATH
func brief(e Effect) string {
	switch e.Kind {
	case Exec:
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = dyn(a.Text, a.Dynamic)
		}
		s := "exec " + strings.Join(parts, " ")
		if e.OpenEnded {
			s += " …"
		}
		return s
	case Write, Read:
		return e.Kind.String() + " " + dyn(e.Path, e.Dynamic)
	case Network:
		return "net " + dyn(e.Host, e.Dynamic)
	case Opaque:
		return "opaque"
	case Protected:
		return "protected"
	}
	return "?"
}

func dyn(s string, d bool) string {
	if d {
		return "~{" + s + "}"
	}
	return s
}

func briefs(effects []Effect) []string {
	out := make([]string, len(effects))
	for i, e := range effects {
		out[i] = brief(e)
	}
	return out
}

func hasKind(effects []Effect, k Kind) bool {
	for _, e := range effects {
		if e.Kind == k {
			return true
		}
	}
	return false
}
