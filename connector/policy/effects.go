package policy

import (
	"os"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// maxEffectsNamed bounds the effects an "effects" reason names.
const maxEffectsNamed = 4

// siblings returns the effects that follow effs[i] up to the next Exec:
// for an Exec, what the analyzer found that command does.
func siblings(effs []shell.Effect, i int) []shell.Effect {
	if effs[i].Kind != shell.Exec {
		return nil
	}
	j := i + 1
	for j < len(effs) && effs[j].Kind != shell.Exec {
		j++
	}
	return effs[i+1 : j]
}

// effectsReason is the reason of an understood command that no shell rule
// names: the effects that decide it instead, each a part of its own.
func effectsReason(effs []shell.Effect) string {
	if len(effs) == 0 {
		return "its effects are allowed: it writes, reads and reaches nothing"
	}
	var b strings.Builder
	b.WriteString("its effects are allowed: ")
	for i, ef := range effs {
		if i == maxEffectsNamed {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(effectText(&ef))
	}
	return b.String()
}

// effectText names one effect as Part.Effect does.
func effectText(ef *shell.Effect) string {
	switch ef.Kind {
	case shell.Network:
		return "host " + clipText(ef.Host, maxSubject)
	case shell.Exec:
		return "exec " + clipText(effectSubject(ef), maxSubject)
	}
	return ef.Kind.String() + " " + clipText(effectSubject(ef), maxSubject)
}

// movesTree says why an understood command cannot be decided on its
// effects: it moves a directory (mv DIR DEST), so names the write rules
// guard (.github/workflows, .claude, .git/hooks) could land under DEST
// without any write effect spelling them.
func (e *Engine) movesTree(ex *shell.Effect, sc *scriptCtx) string {
	if baseName(ex.Args[0].Text) != "mv" {
		return ""
	}
	for i := range sc.siblings {
		ef := &sc.siblings[i]
		if ef.Kind != shell.Write || !ef.Recursive {
			continue
		}
		if ef.Dynamic {
			return "it moves " + ef.Path + ", which may be a directory"
		}
		abs, err := e.res.resolve(ef.Path, sc.cwd)
		if err != nil {
			return err.Error()
		}
		if fi, err := os.Lstat(abs); err == nil && fi.IsDir() {
			return "it moves the directory " + abs + ", and what lands under its destination is not checked"
		}
	}
	return ""
}
