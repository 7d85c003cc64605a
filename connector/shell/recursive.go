package shell

// A command that reads a directory whole (grep -r, rg, diff, cp -r) reads
// every file under it: its Read effects carry Recursive, and the policy
// checks the tree for protected files (a secret under the directory makes
// the read a read of that secret).

// recursiveRead reports whether a table-described tool, with these
// options, reads the directories among its operands whole.
func (s *toolSpec) recursiveRead(p parsedArgs) bool {
	if s.recurse || p.has(s.recurseOpts...) {
		return true
	}
	for _, v := range p.values("-d", "--directories") {
		if v.Dynamic || v.Text == "recurse" {
			return s == grepSpec
		}
	}
	return false
}

// markRecursive sets Recursive on the Read effects added since start.
func (a *analyzer) markRecursive(start int) {
	for i := start; i < len(a.effects); i++ {
		if a.effects[i].Kind == Read {
			a.effects[i].Recursive = true
		}
	}
}

// markFollows sets FollowsLinks on the recursive reads since start.
func (a *analyzer) markFollows(start int) {
	for i := start; i < len(a.effects); i++ {
		if a.effects[i].Kind == Read && a.effects[i].Recursive {
			a.effects[i].FollowsLinks = true
		}
	}
}

// followsLinks reports a table-described tool that, with these options,
// follows the links it meets inside a directory it reads whole.
func followsLinks(name string, p parsedArgs) bool {
	switch name {
	case "grep", "egrep", "fgrep":
		return p.has("-R", "--dereference-recursive")
	case "rg":
		return p.has("-L", "--follow")
	case "diff":
		return !p.has("--no-dereference")
	case "cp":
		return p.has("-L", "--dereference")
	}
	return false
}

// markSkipsHidden sets SkipsHidden on the recursive reads since start.
func (a *analyzer) markSkipsHidden(start int) {
	for i := start; i < len(a.effects); i++ {
		if a.effects[i].Kind == Read && a.effects[i].Recursive {
			a.effects[i].SkipsHidden = true
		}
	}
}

// rgSkipsHidden reports an rg command line that leaves hidden files out
// (its default): no --hidden or -., fewer than two -u, and no glob that
// could select a hidden name (-g/--iglob, whose effect on hidden files
// is not relied on). A dynamic word could be any of those.
func rgSkipsHidden(p parsedArgs) bool {
	if p.dynamic || p.has("--hidden", "-.", "-g", "--glob", "--iglob", "--unrestricted") {
		return false
	}
	u := 0
	for _, o := range p.opts {
		if o.name == "-u" {
			u++
		}
	}
	return u < 2
}

// readTree adds a Read effect for a tree the command reads whole.
func (w *walker) readTree(f Word, reason, src string) {
	start := len(w.a.effects)
	w.pathEffect(Read, f, reason, src)
	w.a.markRecursive(start)
}
