package policy

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestPathPattern(t *testing.T) {
	root := []string{"proj"}
	home := []string{"home", "u"}
	tests := []struct {
		pat, path string
		fold      bool
		want      bool
	}{
		{"**", "/proj", false, true},
		{"**", "/proj/a/b", false, true},
		{"**", "/proj-evil/a", false, false},
		{"**", "/projx", false, false},
		{"src/**", "/proj/src/a.go", false, true},
		{"src/**", "/proj/srcx/a.go", false, false},
		{"**/*.go", "/proj/a/b/c.go", false, true},
		{"**/*.go", "/proj/c.go", false, true},
		{"*.go", "/proj/deep/c.go", false, true},
		{".env*", "/proj/.env", false, true},
		{".env*", "/proj/sub/.env.local", false, true},
		{".env*", "/other/.env", false, false},
		{".git/hooks/", "/proj/.git/hooks/pre-commit", false, true},
		{".git/hooks/", "/proj/.git/hooks", false, true},
		{".git/hooks/", "/proj/sub/.git/hooks/x", false, false},
		{".git/config", "/proj/.git/config", false, true},
		{".git/config", "/proj/sub/.git/config", false, false},
		{"~/.ssh/", "/home/u/.ssh/id_rsa", false, true},
		{"~/.ssh/", "/home/v/.ssh/id_rsa", false, false},
		{"/etc/shadow", "/etc/shadow", false, true},
		{"/**/.env*", "/x/y/.env", false, true},
		{"/proc/**/environ", "/proc/1/environ", false, true},
		{"/proc/**/environ", "/proc/1/task/2/environ", false, true},
		{".git/hooks/", "/proj/.GIT/hooks/x", false, false},
		{".git/hooks/", "/proj/.GIT/hooks/x", true, true},
		{"[ab].txt", "/proj/a.txt", false, true},
		{`\*.txt`, "/proj/*.txt", false, true},
		{`\*.txt`, "/proj/a.txt", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.pat+"~"+tc.path, func(t *testing.T) {
			p, err := compilePath(tc.pat)
			if err != nil {
				t.Fatal(err)
			}
			segs := pathSegments(tc.path)
			if got := p.bind(root, home).match(segs, foldSegments(segs), tc.fold); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "a/../b", "~user/x", "a/[b", "a\x00b"} {
		if _, err := compilePath(bad); err == nil {
			t.Errorf("compilePath(%q) accepted", bad)
		}
	}
}

func TestResolve(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX symlink semantics")
	}
	env := newTestEnv(t)
	root := env.root
	outside := filepath.Join(filepath.Dir(root), "outside")
	mustWrite(t, filepath.Join(outside, "secret"), "x")
	mustWrite(t, filepath.Join(root, "src", "a.go"), "x")
	links := map[string]string{
		"out":      outside,                         // a link leaving the project
		"dangling": filepath.Join(outside, "new"),   // to a file that does not exist yet
		"src/up":   "..",                            // relative link
		"loop":     "loop",                          // a link to itself
		"sb":       filepath.Join(root, ".sandbox"), // into .sandbox
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := newResolver(root, env.home)
	tests := []struct {
		in, cwd, want string
		err           bool
	}{
		{"src/a.go", root, filepath.Join(root, "src/a.go"), false},
		{"./src/../src/a.go", root, filepath.Join(root, "src/a.go"), false},
		{"out/secret", root, filepath.Join(outside, "secret"), false},
		{"dangling", root, filepath.Join(outside, "new"), false},
		{"src/up/out/secret", root, filepath.Join(outside, "secret"), false},
		{"out/../proj/x", root, filepath.Join(filepath.Dir(root), "proj/x"), false},
		{"new/dir/f", root, filepath.Join(root, "new/dir/f"), false},
		{"~/.ssh/id", root, filepath.Join(env.home, ".ssh/id"), false},
		{"sb/policy.yaml", root, filepath.Join(root, ".sandbox/policy.yaml"), false},
		{"/a/../../b", root, "/b", false},
		{"loop", root, "", true},
		{"a\x00b", root, "", true},
		{"~root/x", root, "", true},
		{"", root, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := r.resolve(tc.in, tc.cwd)
			if tc.err {
				if err == nil {
					t.Errorf("resolve(%q) = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("resolve(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestWithinIsNotPrefix(t *testing.T) {
	if within(pathSegments("/proj-evil/x"), pathSegments("/proj")) {
		t.Error("/proj-evil/x is inside /proj")
	}
	if !within(pathSegments("/proj/x"), pathSegments("/proj")) {
		t.Error("/proj/x is not inside /proj")
	}
}

func TestNormalizeWindows(t *testing.T) {
	tests := []struct {
		in, want string
		err      bool
	}{
		{`C:\proj\a.txt`, `C:\proj\a.txt`, false},
		{`c:/proj/a.txt`, `C:\proj\a.txt`, false},
		{`\\?\C:\proj\a.txt`, `C:\proj\a.txt`, false},
		{`\\?\UNC\Server\Share\x`, `\\server\share\x`, false},
		{`\\server\share\x`, `\\server\share\x`, false},
		{`C:\proj\.sandbox.\x`, `C:\proj\.sandbox\x`, false},
		{`C:\proj\.sandbox \x`, `C:\proj\.sandbox\x`, false},
		{`C:\proj\.sandbox. . .\x`, `C:\proj\.sandbox\x`, false},
		{`C:\proj\file.txt::$DATA`, `C:\proj\file.txt`, false},
		{`C:\proj\.sandbox::$INDEX_ALLOCATION\x`, `C:\proj\.sandbox\x`, false},
		{`C:\proj\f.txt:hidden`, `C:\proj\f.txt`, false},
		{`C:\proj\a\..\..\..\b`, `C:\b`, false},
		{`/c/proj/x`, `C:\proj\x`, false},
		{`\proj\x`, `D:\proj\x`, false},
		{`sub\x`, `sub\x`, false},
		{`..\x`, `..\x`, false},
		{`C:\proj\NUL`, "", true},
		{`C:\proj\con.txt`, "", true},
		{`C:\proj\COM1`, "", true},
		{`C:\proj\lpt¹.log`, "", true},
		{`C:\proj\CONOUT$`, "", true},
		{`C:\proj\...`, "", true},
		{`\\.\PhysicalDrive0`, "", true},
		{`\\?\Volume{0}\x`, "", true},
		{`\??\C:\x`, "", true},
		{`C:proj`, "", true},
		{`\\server`, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := normalizeWindows(tc.in, "D:")
			if tc.err {
				if err == nil {
					t.Errorf("normalizeWindows(%q) = %q, want an error", tc.in, got)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("normalizeWindows(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestFoldName(t *testing.T) {
	same := [][2]string{
		{".SANDBOX", ".sandbox"},
		{".ſandbox", ".sandbox"}, // U+017F LONG S folds to s (APFS)
		{"\u212Aey", "key"},      // KELVIN SIGN
		{".git\u200c", ".git"},   // zero-width non-joiner (HFS+ ignored it)
		{".env\ufeff", ".env"},   // BOM
		{"a\u00adb", "ab"},       // soft hyphen
		{"x\u202e", "x"},         // bidi override
		{"\u00b5", "\u03bc"},     // micro sign and mu
		{"\u03a3", "\u03c3"},     // sigma
		{"\u03c2", "\u03c3"},     // final sigma
		{"MiXeD.txt", "mixed.txt"},
	}
	for _, p := range same {
		if foldName(p[0]) != foldName(p[1]) {
			t.Errorf("foldName(%q) = %q != foldName(%q) = %q", p[0], foldName(p[0]), p[1], foldName(p[1]))
		}
	}
	differ := [][2]string{
		{".\u0455andbox", ".sandbox"}, // Cyrillic dze is another letter
		{"g\u0456t", "git"},           // Cyrillic i
		{".sandbox2", ".sandbox"},
	}
	for _, p := range differ {
		if foldName(p[0]) == foldName(p[1]) {
			t.Errorf("foldName(%q) == foldName(%q)", p[0], p[1])
		}
	}
}
