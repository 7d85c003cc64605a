package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestForShell(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	home, _ := os.UserHomeDir()
	writeFile(t, filepath.Join(cwd, "a.o"), "", 0o644)
	writeFile(t, filepath.Join(cwd, "b.o"), "", 0o644)
	in := func(ps ...string) []string {
		for i, p := range ps {
			ps[i] = filepath.Join(cwd, p)
		}
		return ps
	}
	tests := []struct {
		script string
		paths  []string
		whole  bool
	}{
		{"rm -rf src", in("src"), false},
		{"mv a b", in("a", "b"), false},
		{"cp a b", in("b"), false},
		{"sed -i s/x/y/ f.txt", in("f.txt"), false},
		{"echo x > out.txt", in("out.txt"), false},
		{"cd sub && rm x", in("sub/x"), false},
		{"truncate -s0 f", in("f"), false},
		{"rm *.o", in("a.o", "b.o"), false},
		{"tar xf a.tar", in("."), false},
		{"ls -la && cat README.md", nil, false},
		{"git status", nil, false},
		{"git log --oneline", nil, false},
		{"git checkout -- .", nil, true},
		{"git -C sub restore f", nil, true},
		{"git reset --hard", nil, true},
		{"git clean -fdx", nil, true},
		{"git stash", nil, true},
		{"git -c core.x=y switch main", nil, true},
		{"find . -name '*.o' -delete", nil, true},
		{`rm -rf "$DIR"`, nil, true},
		{"rm -rf ~/x", []string{filepath.Join(home, "x")}, false},
		{"rm -rf ~root/x", nil, true},
		{"eval 'rm x'", nil, true},
		{"unzip a.zip", nil, true},
		{"patch -p1 < fix.diff", nil, true},
		{"go fmt ./...", nil, true},
		{"npx prettier --write .", nil, true},
		{"go test ./...", nil, false},
		{"make test", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.script, func(t *testing.T) {
			paths, whole := ForShell(tc.script, cwd)
			// Every expected path is there (the analyzer may name more,
			// such as cp's b/a when b is a directory).
			if whole != tc.whole || (!whole && !containsAll(paths, tc.paths)) || (len(tc.paths) == 0 && len(paths) > 0) {
				t.Errorf("ForShell = %v, %v; want %v, %v", paths, whole, tc.paths, tc.whole)
			}
		})
	}
}

func containsAll(got, want []string) bool {
	for _, w := range want {
		if !slices.Contains(got, w) {
			return false
		}
	}
	return true
}
