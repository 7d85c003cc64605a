package policy

import (
	"github.com/sandbox-dev/sandbox/connector/shell"
)

// Bounds on shell input checked before the analyzer sees it.
const (
	maxScriptBytes = 1 << 20
	maxArgvWords   = 10000
)

// Shell decides a bash script run in cwd ("" is the project root): every
// simple command, redirection, file and destination it would reach.
func (e *Engine) Shell(script, cwd string) (d Decision) {
	defer e.stampTo(&d)
	defer e.recoverTo(&d, Shell, script)
	switch {
	case len(script) > maxScriptBytes:
		return single(Shell, clipText(script, maxSubject), Escalate, ruleInput, "script too large to classify")
	}
	return e.decideEffects(shell.Analyze(script, e.shellOpts), cwd)
}

// Argv decides a command run directly, without a shell (no re-joining:
// each element is one word).
func (e *Engine) Argv(argv []string, cwd string) (d Decision) {
	defer e.stampTo(&d)
	subject := quoteArgv(literalWords(argv, 16), len(argv) > 16)
	defer e.recoverTo(&d, Shell, subject)
	size := 0
	for _, a := range argv {
		size += len(a)
	}
	switch {
	case len(argv) == 0:
		return single(Shell, "", Escalate, ruleInput, "empty command")
	case len(argv) > maxArgvWords || size > maxScriptBytes:
		return single(Shell, subject, Escalate, ruleInput, "command too large to classify")
	}
	return e.decideEffects(shell.AnalyzeArgv(argv, e.shellOpts), cwd)
}

func literalWords(argv []string, n int) []shell.Word {
	out := make([]shell.Word, 0, min(len(argv), n))
	for _, a := range argv[:min(len(argv), n)] {
		out = append(out, shell.Word{Text: a})
	}
	return out
}

// decideEffects decides every effect the analyzer found.
func (e *Engine) decideEffects(effs []shell.Effect, cwd string) Decision {
	if len(effs) == 0 {
		return single(Shell, "", Escalate, ruleNothing, "the analyzer found nothing this would run; a human decides")
	}
	dir, err := e.workDir(cwd)
	if err != nil {
		return single(Shell, cwd, Escalate, rulePath, "working directory: "+err.Error())
	}
	sc, parts := e.newScript(effs, dir)
	for i := range effs {
		sc.siblings = siblings(effs, i)
		parts = e.effectParts(parts, &effs[i], sc)
	}
	return combine(parts)
}

func (e *Engine) effectParts(parts []Part, ef *shell.Effect, sc *scriptCtx) []Part {
	switch ef.Kind {
	case shell.Exec:
		parts = append(parts, e.execPart(ef, sc))
		parts = e.gitRepoParts(parts, ef, sc)
		return e.wordGuard(parts, ef, sc)
	case shell.Write:
		return e.scriptPathParts(parts, Write, ef, sc)
	case shell.Read:
		return e.scriptPathParts(parts, Read, ef, sc)
	case shell.Network:
		return append(parts, e.scriptHostPart(ef))
	case shell.Protected:
		return append(parts, Part{Trigger: Shell, Subject: effectSubject(ef), Decision: Deny, Rule: ruleSelf,
			Reason: joinReason(ef.Reason, reasonSelf), Effect: "protected " + clipText(effectSubject(ef), maxSubject)})
	case shell.Opaque:
		if sc.contained {
			return append(parts, containedPart(ef))
		}
		return append(parts, Part{Trigger: Shell, Subject: effectSubject(ef), Decision: Escalate, Rule: ruleOpaque,
			Reason: joinReason(ef.Reason, "cannot be classified statically"), Effect: "opaque " + clipText(effectSubject(ef), maxSubject)})
	}
	return append(parts, Part{Trigger: Shell, Subject: effectSubject(ef), Decision: Escalate, Rule: ruleOpaque,
		Reason: "unknown kind of effect " + ef.Kind.String()})
}

// execPart decides one simple command.
func (e *Engine) execPart(ef *shell.Effect, sc *scriptCtx) Part {
	subject := quoteArgv(ef.Args, ef.OpenEnded)
	if len(ef.Args) == 0 || ef.Args[0].Dynamic {
		return Part{Trigger: Shell, Subject: subject, Decision: Escalate, Rule: ruleDynamic,
			Reason: "the command name is not a literal word"}
	}
	name := ef.Args[0].Text
	lists := func(t *tierRules, may bool) [][]*boundRule {
		if may {
			return t.forMay(name)
		}
		return t.forAllow(name)
	}
	m := func(r *boundRule, may bool) matchKind {
		return r.matchShell(may, func(p *argvPattern) matchKind {
			if may {
				return p.matchMay(ef.Args, ef.OpenEnded)
			}
			return p.matchAllow(ef.Args, ef.OpenEnded, sc.afterCD)
		})
	}
	v := evaluate(e.index(Shell), lists, m)
	if ef.Understood && v.tier == Escalate && v.noRule {
		if why := e.movesTree(ef, sc); why != "" {
			v.reason += "; its effects cannot decide it: " + why
		} else {
			v = verdict{tier: Allow, rule: ruleEffects, reason: effectsReason(sc.siblings)}
		}
	}
	sc.contained = e.jailed && v.tier == Allow && v.jailed
	p := v.part(Shell, subject)
	if p.Decision == Escalate && v.soft {
		p.Propose = proposeArgv(*ef)
	}
	return p
}

func effectSubject(ef *shell.Effect) string {
	switch {
	case ef.Path != "":
		return ef.Path
	case ef.Host != "":
		return ef.Host
	case len(ef.Args) > 0:
		return quoteArgv(ef.Args, ef.OpenEnded)
	}
	return clipText(ef.Source, maxSubject)
}

func joinReason(specific, general string) string {
	if specific == "" {
		return general
	}
	return specific + ": " + general
}
