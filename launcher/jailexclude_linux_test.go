//go:build linux

package launcher

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJailGitIgnoresPlaceholders: the placeholders that pin missing
// protected files (.envrc, .mcp.json, .gitlab-ci.yml) are there in the
// jail, but git in it neither lists them nor adds them with `git add -A`,
// in a linked worktree (an agent's) and in the main worktree; the
// repository's own excludes still hold, a new file of the agent's is
// still listed and added, a protected file that exists is not hidden,
// and the repository's info/exclude is unchanged after the run.
func TestJailGitIgnoresPlaceholders(t *testing.T) {
	script := `cd "$1"
for f in .envrc .mcp.json .gitlab-ci.yml; do [ -f "$f" ] && echo "pinned $f"; done
echo new > agent-new.txt
echo log > debug.log
git status --porcelain --untracked-files=all | sed 's/^/status /'
git add -A
git diff --cached --name-only | sed 's/^/staged /'
echo DONE`
	for _, where := range []string{"linked worktree", "main worktree"} {
		t.Run(where, func(t *testing.T) {
			e := newWorktreeJail(t)
			dir := e.wt
			if where == "main worktree" {
				e.mainJail(t)
				dir = e.main
			}
			// the folder's own bus and the worktrees are the project's business
			mustWrite(t, filepath.Join(dir, ".gitignore"), ".sandbox/\n")
			mustWrite(t, filepath.Join(dir, ".gitlab-ci.yml"), "stages: [test]\n") // exists: pinned as it is
			exclude := filepath.Join(e.common, "info", "exclude")
			mustWrite(t, exclude, "*.log")
			out, res := runJailed(t, e.options(jailModes[0], "/bin/sh", "-c", script, "sh", dir))
			if res.Code != 0 || !strings.Contains(out, "DONE") {
				t.Fatalf("exit %d:\n%s", res.Code, out)
			}
			for _, want := range []string{"pinned .envrc", "pinned .mcp.json", "status ?? agent-new.txt", "staged agent-new.txt",
				"status ?? .gitlab-ci.yml", "staged .gitlab-ci.yml"} {
				if !strings.Contains(out, want+"\n") {
					t.Errorf("the output lacks %q:\n%s", want, out)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.Contains(line, ".envrc") && !strings.HasPrefix(line, "pinned") ||
					strings.Contains(line, ".mcp.json") && !strings.HasPrefix(line, "pinned") ||
					strings.Contains(line, "debug.log") {
					t.Errorf("git in the jail saw %q:\n%s", line, out)
				}
			}
			if b, _ := os.ReadFile(exclude); string(b) != "*.log" {
				t.Errorf("info/exclude after the run: %q", b)
			}
			for _, f := range []string{".envrc", ".mcp.json"} {
				if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
					t.Errorf("the placeholder %s is left after the run", f)
				}
			}
		})
	}
}
