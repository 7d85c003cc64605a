package shell

import "testing"

// Secret reads through tools whose command lines the analyzer used to
// misread (docs/THREAT-MODEL.md, class 14): jq after --args and with -f, git reading
// files outside the repository, and tools that read directories whole.
func TestSecretReadsAdversarial(t *testing.T) {
	runShows(t, [][2]string{
		// jq: options after --args still count; -f makes the first operand
		// the program file; --rawfile/--slurpfile read their file.
		{"jq -n --args -f ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"jq --args -f ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"jq -nf ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"jq -rnf ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"jq --from-file ~/.ssh/id_rsa x.json", "read:~/.ssh/id_rsa"},
		{"jq ~/.ssh/id_rsa -f", "read:~/.ssh/id_rsa"},
		{"jq -f prog.jq ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"jq -f prog.jq", "opaque"},
		{"jq --args . x --rawfile k ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"jq --jsonargs . 1 --slurpfile k ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"jq . a.json --args b ~/.x", "read:a.json"},
		{"jq -- . ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"jq -L ~/.ssh . ~/.netrc", "read:~/.netrc"},
		{"jq -L. . ~/.netrc", "read:~/.netrc"},
		{"jq --indent 2 . ~/.netrc", "read:~/.netrc"},
		{"jq --arg a b --argjson c 1 . ~/.netrc", "read:~/.netrc"},
		{"jq --run-tests ~/.netrc", "read:~/.netrc"},
		{"jq -n 'import \"config\" as $c {search: \"~/.docker\"}; $c'", "opaque"},
		{"jq -n 'include \"x\"; .'", "opaque"},
		{"jq \"$PROG\" x.json", "opaque"},
		{"jq $OPT . x.json", "opaque"},
		// git reading files outside the repository.
		{"git diff --no-index ~/.ssh/id_rsa /dev/null", "rread:~/.ssh/id_rsa"},
		{"git diff --no-index -- a ~/.netrc", "rread:~/.netrc"},
		{"git diff --stat --no-index x ~", "rread:~"},
		{"git diff /etc/shadow x", "rread:/etc/shadow"},
		{"git diff ../../secret x", "rread:../../secret"},
		{"git --no-pager diff --no-index a ~/.netrc", "rread:~/.netrc"},
		{"git -c core.quotepath=false diff --no-index a ~/.netrc", "rread:~/.netrc"},
		{"git blame --contents ~/.netrc f", "read:~/.netrc"},
		{"git blame --contents=~/.netrc f", "read:~/.netrc"},
		{"git blame --cont ~/.netrc f", "read:~/.netrc"},
		{"git blame -S ~/.netrc f", "read:~/.netrc"},
		{"git blame --ignore-revs-file ~/.netrc f", "read:~/.netrc"},
		{"git config --list -f ~/.aws/credentials", "read:~/.aws/credentials"},
		{"git config --list --file=~/.aws/credentials", "read:~/.aws/credentials"},
		{"git config -f~/.aws/credentials --list", "read:~/.aws/credentials"},
		{"git config --get --file ~/.aws/credentials default.key", "read:~/.aws/credentials"},
		{"git grep --no-index token ~", "rread:~"},
		{"git grep --no-index token", "rread:."},
		{"git grep --untracked -e token", "rread:."},
		{"git grep -f ~/.netrc", "read:~/.netrc"},
		{"git show HEAD:.env", "read:.env"},
		{"git show HEAD~3:app/.env.local", "read:app/.env.local"},
		{"git cat-file -p main:.env", "read:.env"},
		{"git show :.env", "read:.env"},
		{"git show :0:.env", "read:.env"},
		// Tools that read directories whole.
		{"grep -r token ~", "rread:~"},
		{"grep -rn token .", "rread:."},
		{"grep -R token", "rread:."},
		{"grep -ril token src", "rread:src"},
		{"grep --recursive token d", "rread:d"},
		{"grep --recu token d", "rread:d"},
		{"grep --dereference-recursive token d", "rread:d"},
		{"grep -d recurse token d", "rread:d"},
		{"grep --directories=recurse token d", "rread:d"},
		{"egrep -r token d", "rread:d"},
		{"rg token", "rread:."},
		{"rg -uuu token ~", "rread:~"},
		{"diff -r ~ /tmp/x", "rread:~"},
		{"diff ~ /tmp/x", "rread:~"},
		{"cp -r ~ dst", "rread:~"},
		{"cp -a ~/.config dst", "rread:~/.config"},
	})
}

// Reads that stay plain: jq's --args operands are not files, a git diff
// of revisions or pathspecs inside the repository reads nothing outside.
func TestSecretReadsEveryday(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"jq args", "jq -n --args '$ARGS' a b", []string{"exec jq -n --args $ARGS a b"}},
		{"jq jsonargs", "jq -n --jsonargs '$ARGS' 1 2", []string{"exec jq -n --jsonargs $ARGS 1 2"}},
		{"jq file", "jq -r .name package.json", []string{"exec jq -r .name package.json", "read package.json"}},
		{"jq stdin dash", "jq . -", []string{"exec jq . -", "read -"}},
		{"jq import in a string key", "jq .imports x.json", []string{"exec jq .imports x.json", "read x.json"}},
		{"git diff revs", "git diff HEAD~1 main -- src", []string{"exec git diff HEAD~1 main -- src"}},
		{"git grep", "git grep -n foo -- src", []string{"exec git grep -n foo -- src"}},
		{"git blame", "git blame -L 1,5 main.go", []string{"exec git blame -L 1,5 main.go"}},
		{"git config get", "git config --get user.name", []string{"exec git config --get user.name"}},
		{"grep one file", "grep -n foo main.go", []string{"exec grep -n foo main.go", "read main.go"}},
		{"sort -R is random", "sort -R f", []string{"exec sort -R f", "read f"}},
	})
}

func TestRecursiveMarked(t *testing.T) {
	for _, in := range []string{"grep -rn foo src", "rg foo src", "diff -r src b", "cp -R src dst"} {
		found := false
		for _, e := range Analyze(in, testOpts) {
			if e.Kind == Read && e.Path == "src" {
				found = e.Recursive
			}
		}
		if !found {
			t.Errorf("%s: no recursive read of src: %q", in, briefs(Analyze(in, testOpts)))
		}
	}
	for _, e := range Analyze("grep -n foo src cat x", testOpts) {
		if e.Recursive {
			t.Errorf("grep without -r marked recursive: %v", e)
		}
	}
}

func FuzzJqArgs(f *testing.F) {
	for _, s := range []string{"jq -n --args -f x", "jq --rawfile a b .", "jq -L", "jq --arg", "jq -- -f", "jq -nLx . y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, e := range Analyze("jq "+s, testOpts) {
			if e.Kind == Opaque && e.Reason == "internal error in the shell analyzer" {
				t.Fatalf("jq %q: the analyzer panicked", s)
			}
		}
	})
}

// rg skips hidden names by default; --hidden, -., -uu and globs undo it.
func TestRgSkipsHidden(t *testing.T) {
	for in, want := range map[string]bool{
		"rg x src": true, "rg -n x": true, "rg -u x src": true,
		"rg --hidden x src": false, "rg -. x src": false, "rg -uu x src": false, "rg -u -u x src": false,
		"rg -g '*.env' x src": false, "rg --iglob=x x src": false, "rg --unrestricted x src": false,
	} {
		for _, e := range Analyze(in, testOpts) {
			if e.Kind == Read && e.Recursive && e.SkipsHidden != want {
				t.Errorf("%s: SkipsHidden = %v, want %v", in, e.SkipsHidden, want)
			}
		}
	}
	if !hasKind(Analyze("RIPGREP_CONFIG_PATH=x rg y", testOpts), Opaque) {
		t.Error("RIPGREP_CONFIG_PATH can add --pre to every rg")
	}
}

// Every text utility that prints its files reads them, and a list of
// files to read (--files0-from, file -f) is a read of unknown paths.
func TestTextUtilitiesRead(t *testing.T) {
	var cases [][2]string
	for _, name := range []string{"cat", "tac", "nl", "rev", "head", "tail", "wc", "cut", "sort", "od", "hexdump",
		"strings", "base64", "column", "md5sum", "sha256sum", "comm", "paste", "fold", "join", "expand",
		"unexpand", "fmt", "pr", "tsort", "shuf", "cmp", "diff"} {
		cases = append(cases, [2]string{name + " ~/.ssh/id_rsa x", "read:~/.ssh/id_rsa"})
	}
	cases = append(cases, [][2]string{
		{"paste -d, ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"fold -w 80 ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"join -t, a ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"shuf -o /tmp/x f", "write:/tmp/x"},
		// Options without a separate argument must not eat the file
		// (column -t ~/.ssh/id_rsa printed the key).
		{"column -t ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"column -d ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"column -ts, ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"od -w ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"od --width ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"od --strings ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"shuf -z ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"pr -S ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"pr --sep-string ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"join --header ~/.ssh/id_rsa x", "read:~/.ssh/id_rsa"},
		{"diff --unified ~/.ssh/id_rsa x", "rread:~/.ssh/id_rsa"},
		{"diff --context ~/.ssh/id_rsa x", "rread:~/.ssh/id_rsa"},
		{"du --time ~/.ssh", "read:~/.ssh"},
		{"sort --files0-from=f", "read:f"},
		{"sort --files0-from=f", "read:(the files f names)"},
		{"wc --files0-from=-", "read:(the files - names)"},
		{"du --files0-from f", "read:(the files f names)"},
		{"file -f list", "read:(the files list names)"},
		{"find -files0-from f -name x", "read:(the start points f names)"},
	}...)
	runShows(t, cases)
}

// TestGitMessageFiles: git commit -F (and tag, merge, notes; --file,
// --template, -t, --pathspec-from-file) read a file whose content lands
// in the repository or in git's messages: ~/.ssh/id_rsa as a commit
// message was allowed, and the next push would carry it away.
func TestGitMessageFiles(t *testing.T) {
	for _, tc := range []struct{ in, must string }{
		{"git commit -F ~/.ssh/id_rsa", "~/.ssh/id_rsa"},
		{"git commit -aF ~/.ssh/id_rsa", "~/.ssh/id_rsa"},
		{"git commit -F~/.ssh/id_rsa", "~/.ssh/id_rsa"},
		{"git commit --file=/etc/shadow", "/etc/shadow"},
		{"git commit --fi /etc/shadow", "/etc/shadow"},
		{"git commit -t ~/.netrc", "~/.netrc"},
		{"git commit --template ~/.netrc", "~/.netrc"},
		{"git tag -a v1 -F ~/.aws/credentials", "~/.aws/credentials"},
		{"git merge -F .env x", ".env"},
		{"git notes add -F .env", ".env"},
		{"git add --pathspec-from-file=.env", ".env"},
		{"git restore --pathspec-from-file .env", ".env"},
	} {
		if effs := Analyze(tc.in, testOpts); !readsPath(effs, tc.must) {
			t.Errorf("Analyze(%q) hides %s: %q", tc.in, tc.must, briefs(effs))
		}
	}
	// -m's value is no file, even when it looks like -F.
	if effs := Analyze("git commit -m -F", testOpts); hasKind(effs, Read) {
		t.Errorf("git commit -m -F reads a file: %q", briefs(effs))
	}
}

func readsPath(effs []Effect, p string) bool {
	for _, e := range effs {
		if e.Kind == Read && e.Path == p {
			return true
		}
	}
	return false
}
