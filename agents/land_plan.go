package agents

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// LandOptions are what `sandbox agents land` was asked.
type LandOptions struct {
	Main   folder.Folder
	Record Record // the agent, from the registry
	Mode   Mode
	Into   string // the target branch; "" is MAIN's checked-out branch
	// Push pushes the target to its upstream once landed.
	Push bool
	// PR pushes the pinned commit as the agent's branch to the target's
	// remote and opens a pull request into the target with gh, instead
	// of landing locally.
	PR bool
	// Exe is the sandbox binary the approver runs (`agents apply-land`).
	Exe string
	// Test is the policy's agents.test command ("": none); RunTest runs
	// it in the agent's worktree, in a jail (RunTest in land_check.go).
	Test    string
	RunTest func(ctx context.Context, worktree, command string) TestResult
}

// Plan is a land ready to be asked for: what will be done, the facts
// the approver sees, and the request that carries it.
type Plan struct {
	Landing    Landing
	CheckedOut bool   // the target is MAIN's checked-out branch
	Diffstat   string // git diff --stat target...head
	Test       *TestResult
	// TestedHead is the commit the agent's worktree had checked out when
	// the test ran ("" when unknown): the test runs what the agent left
	// there, which need not be the pinned commit.
	TestedHead string
	// Push is the remote and ref the target (or, with PR, the pinned
	// commit) is pushed to; "" without.
	Remote, RemoteRef string
	PR                bool
	Request           *queue.Request
}

// PrepareLand pins the agent's branch head as MAIN's repository has it
// (never asking the agent's worktree), checks that the land would apply
// (a conflict is reported now, with its files, and nothing is asked),
// runs the policy's test command in the agent's worktree, and builds the
// request whose text shows all of it.
func PrepareLand(ctx context.Context, o LandOptions) (*Plan, error) {
	if o.PR {
		if _, err := exec.LookPath("gh"); err != nil {
			return nil, fmt.Errorf("%w: --pr opens the pull request with the GitHub CLI, and gh is not on PATH (install it, or land without --pr)", ErrLandUsage)
		}
	}
	r, err := openRepo(o.Main.Root)
	if err != nil {
		return nil, err
	}
	p := &Plan{PR: o.PR}
	if p.Landing, p.CheckedOut, err = r.pin(ctx, o); err != nil {
		return nil, err
	}
	if err := r.dryRun(ctx, p); err != nil {
		return nil, err
	}
	if o.Push || o.PR {
		if p.Remote, p.RemoteRef, err = r.upstream(ctx, p.Landing, o.PR); err != nil {
			return nil, err
		}
	}
	p.Diffstat, err = r.run(ctx, "diff", "--stat=100", "--no-ext-diff", "--no-textconv", "--no-color",
		p.Landing.Target+"..."+p.Landing.Head)
	if err != nil {
		return nil, err
	}
	if o.Test != "" && o.RunTest != nil {
		p.TestedHead = r.worktreeHead(ctx, o.Record.Worktree)
		tr := o.RunTest(ctx, o.Record.Worktree, o.Test)
		p.Test = &tr
	}
	p.Request = p.request(o.Exe, o.Main.Root)
	return p, nil
}

// pin resolves the agent's branch and the target to commits.
func (r *repo) pin(ctx context.Context, o LandOptions) (l Landing, checkedOut bool, err error) {
	l = Landing{Name: o.Record.Name, Mode: o.Mode, Into: o.Into}
	if err := ValidName(l.Name); err != nil {
		return l, false, err
	}
	if o.Record.Branch != "" && o.Record.Branch != l.Branch() {
		return l, false, fmt.Errorf("bug: agent %s's record names branch %q", l.Name, o.Record.Branch)
	}
	if l.Head, err = r.commit(ctx, "refs/heads/"+l.Branch()); err == nil && l.Head == "" {
		err = fmt.Errorf("%w: %s (agent %s's branch is not in MAIN's repository)", ErrNoBranch, l.Branch(), l.Name)
	}
	if err != nil {
		return l, false, err
	}
	cur, err := r.checkedOut(ctx)
	if err != nil {
		return l, false, err
	}
	if l.Into == "" {
		if l.Into = cur; cur == "" {
			return l, false, fmt.Errorf("%w: MAIN's HEAD is detached; name the target branch with --into", ErrLandUsage)
		}
	}
	if !validBranch(l.Into) {
		return l, false, fmt.Errorf("%w: target branch %q", ErrLandUsage, l.Into)
	}
	if l.Target, err = r.commit(ctx, "refs/heads/"+l.Into); err == nil && l.Target == "" {
		err = fmt.Errorf("%w: %s", ErrNoBranch, l.Into)
	}
	if err != nil {
		return l, false, err
	}
	if l.Ident, err = r.ident(ctx); err != nil {
		return l, false, err
	}
	return l, cur == l.Into, l.Check()
}

// ident is the committer identity MAIN's git config gives, without its
// time stamp.
func (r *repo) ident(ctx context.Context) (string, error) {
	out, err := r.line(ctx, "var", "GIT_COMMITTER_IDENT")
	if err != nil {
		return "", err
	}
	if i := strings.LastIndex(out, "> "); i >= 0 {
		out = out[:i+1]
	}
	return out, nil
}

// worktreeHead is the commit the worktree at wt has checked out, read
// from its administrative directory in MAIN's .git (the one whose gitdir
// names wt/.git; the worktree's own .git file is not read): a commit id,
// or a branch of MAIN's, resolved there. "" when it cannot be told.
func (r *repo) worktreeHead(ctx context.Context, wt string) string {
	dir := filepath.Join(r.gitDir, "worktrees")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "gitdir"))
		if err != nil || strings.TrimSpace(string(b)) != filepath.Join(wt, ".git") {
			continue
		}
		head, err := os.ReadFile(filepath.Join(dir, e.Name(), "HEAD"))
		if err != nil || len(head) > 1024 {
			return ""
		}
		ref := strings.TrimSpace(string(head))
		if rest, ok := strings.CutPrefix(ref, "ref: "); ok {
			if !strings.HasPrefix(rest, "refs/heads/") || !validBranch(strings.TrimPrefix(rest, "refs/heads/")) {
				return ""
			}
			ref = rest
		} else if !commitRE().MatchString(ref) {
			return ""
		}
		id, _ := r.commit(ctx, ref)
		return id
	}
	return ""
}

// dryRun checks that the land applies as things are now: the target is
// not checked out elsewhere and the head is not in it yet; for a local
// land, the new commits are made (objects only, no ref moves), so that a
// conflict is reported before anyone is asked.
func (r *repo) dryRun(ctx context.Context, p *Plan) error {
	if err := r.checkTarget(ctx, p.Landing); err != nil {
		return err
	}
	if p.PR {
		contained, err := r.isAncestor(ctx, p.Landing.Head, p.Landing.Target)
		if err == nil && contained {
			err = fmt.Errorf("%w: %s already contains %s", ErrNothingToLand, p.Landing.Into, abbrev(p.Landing.Head))
		}
		return err
	}
	_, err := r.build(ctx, p.Landing)
	return err
}

// upstream is where a push goes: the target's upstream (its remote and
// merge ref) for --push; for --pr, the agent's branch on the target's
// remote (origin when the target has none).
func (r *repo) upstream(ctx context.Context, l Landing, pr bool) (remote, ref string, err error) {
	remote, _ = r.line(ctx, "config", "--get", "branch."+l.Into+".remote")
	ref, _ = r.line(ctx, "config", "--get", "branch."+l.Into+".merge")
	if pr {
		if remote == "" {
			remote = "origin"
		}
		ref = "refs/heads/" + l.Branch()
	}
	switch {
	case remote == "" || ref == "" || remote == ".":
		return "", "", fmt.Errorf("%w: --push: %s has no upstream branch (git branch --set-upstream-to)", ErrLandUsage, l.Into)
	case !validBranch(remote) || !strings.HasPrefix(ref, "refs/heads/") || !validBranch(strings.TrimPrefix(ref, "refs/heads/")):
		return "", "", fmt.Errorf("%w: the upstream of %s (%q %q) is not one land pushes to", ErrLandUsage, l.Into, remote, ref)
	}
	return remote, ref, nil
}

// request is the shell request the approver decides: the trusted
// `sandbox agents apply-land` with every pinned commit id in its argv (a
// script when a push or a pull request follows, so that the policy sees
// the git push and the approval grants it the network), and the text
// that shows what it does.
func (p *Plan) request(exe, root string) *queue.Request {
	sh := &queue.ShellPayload{Argv: ApplyArgv(exe, p.Landing)}
	l := p.Landing
	switch {
	case p.PR:
		title := fmt.Sprintf("%s (agent %s)", l.Branch(), l.Name)
		body := fmt.Sprintf("Commit %s of %s, landed by sandbox agents land.", l.Head, l.Branch())
		sh = &queue.ShellPayload{Shell: "bash", Script: display.QuoteArgv([]string{"git", "push", p.Remote, l.Head + ":" + p.RemoteRef}) +
			" && " + display.QuoteArgv([]string{"gh", "pr", "create", "--base", l.Into, "--head", l.Branch(), "--title", title, "--body", body})}
	case p.Remote != "":
		sh = &queue.ShellPayload{Shell: "bash", Script: display.QuoteArgv(sh.Argv) +
			" && " + display.QuoteArgv([]string{"git", "push", p.Remote, "refs/heads/" + l.Into + ":" + p.RemoteRef})}
	}
	return &queue.Request{Kind: queue.KindShell, Shell: sh, Cwd: root, Source: queue.SourceCLI,
		Agent: "sandbox agents land", Justification: p.Text()}
}

// maxText keeps the shown text within a request's justification.
const maxText = queue.MaxJustification - 512

// Text is what the approver reads about the land (the request's
// justification): the agent, the branch and pinned commit, the target
// and its commit, the mode, the diffstat, the test result and exactly
// what will be done.
func (p *Plan) Text() string {
	l := p.Landing
	var b strings.Builder
	fmt.Fprintf(&b, "land agent %s: %s\n", l.Name, p.Does())
	fmt.Fprintf(&b, "branch:  %s at %s (pinned: commits the agent makes later do not land)\n", l.Branch(), l.Head)
	where := "not checked out: moved with update-ref, MAIN's working tree untouched"
	if p.CheckedOut {
		where = "checked out in MAIN: fast-forwarded by git; uncommitted changes stay, or git refuses and nothing changes"
	}
	fmt.Fprintf(&b, "target:  %s at %s (%s; if it moves before the approval, nothing lands)\n", l.Into, l.Target, where)
	fmt.Fprintf(&b, "mode:    %s\n", p.modeText())
	b.WriteString(p.testText())
	b.WriteString("changes (git diff --stat " + abbrev(l.Target) + "..." + abbrev(l.Head) + "):\n")
	stat := strings.TrimRight(p.Diffstat, "\n")
	if len(stat) > maxText-b.Len() {
		lines := strings.Split(stat, "\n")
		keep := lines[:0:0]
		for _, ln := range lines[:len(lines)-1] {
			if len(strings.Join(keep, "\n"))+len(ln) > maxText-b.Len()-200 {
				break
			}
			keep = append(keep, ln)
		}
		keep = append(keep, fmt.Sprintf(" ... %d more files (sandbox agents diff %s shows them all)", len(lines)-1-len(keep), l.Name), lines[len(lines)-1])
		stat = strings.Join(keep, "\n")
	}
	b.WriteString(stat)
	return b.String()
}

// Does says in one line what an approval does.
func (p *Plan) Does() string {
	l := p.Landing
	if p.PR {
		return fmt.Sprintf("push commit %s of %s to %s as %s and open a pull request into %s (MAIN changes nothing)",
			abbrev(l.Head), l.Branch(), p.Remote, p.RemoteRef, l.Into)
	}
	s := fmt.Sprintf("%s commit %s of %s into %s (at %s)", l.Mode, abbrev(l.Head), l.Branch(), l.Into, abbrev(l.Target))
	if p.Remote != "" {
		s += fmt.Sprintf(", then push %s to %s %s", l.Into, p.Remote, p.RemoteRef)
	}
	return s
}

func (p *Plan) modeText() string {
	switch {
	case p.PR:
		return "pull request (nothing lands locally)"
	case p.Landing.Mode == Squash:
		return "squash: one new commit on " + p.Landing.Into + " with all of the branch's changes"
	case p.Landing.Mode == Rebase:
		return "rebase: the branch's commits replayed onto " + p.Landing.Into + ", which fast-forwards to them"
	}
	return "merge: one merge commit, parents " + p.Landing.Into + " and the pinned commit"
}

// maxTail bounds the test output the approver is shown.
const maxTail = 1500

func (p *Plan) testText() string {
	t := p.Test
	if t == nil {
		return "test:    none (the policy names no agents.test command)\n"
	}
	head := fmt.Sprintf("test:    `%s` in the agent's worktree, in a jail: ", t.Command)
	switch {
	case t.Err != "":
		head += "did not run: " + t.Err
	case t.Passed:
		head += "passed"
	default:
		head += fmt.Sprintf("FAILED (exit %d)", t.Code)
	}
	switch {
	case p.TestedHead == p.Landing.Head:
		head += "\n  the worktree had the pinned commit checked out (and whatever the agent had not committed)"
	case p.TestedHead != "":
		head += "\n  NOTE: the worktree had " + abbrev(p.TestedHead) + " checked out, not the pinned commit"
	default:
		head += "\n  NOTE: which commit the worktree had checked out is unknown"
	}
	tail := t.Tail
	if len(tail) > maxTail {
		tail = "..." + tail[len(tail)-maxTail:]
	}
	if tail = strings.TrimRight(tail, "\n"); tail != "" {
		head += "\n  last lines of its output:\n    " + strings.ReplaceAll(tail, "\n", "\n    ")
	}
	return head + "\n"
}

// IsUsage reports whether err is one that land reports as a usage error
// (exit 2): the agent, branch, target or flags cannot be landed as given.
func IsUsage(err error) bool {
	for _, e := range []error{ErrBadName, ErrNoAgent, ErrNoBranch, ErrLandUsage, ErrNothingToLand} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
