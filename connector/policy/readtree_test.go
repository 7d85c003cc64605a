package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cleanRel turns fuzz text into a relative path of at most n plain names.
func cleanRel(s string, n int) string {
	var out []string
	for _, name := range strings.Split(s, "/") {
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "\x00\\") || len(name) > 40 {
			continue
		}
		if out = append(out, name); len(out) == n {
			break
		}
	}
	return filepath.Join(out...)
}

// FuzzTreeUnder checks boundPath.under against match: whenever a file
// below a directory matches a pattern, under reports that directory as
// reaching it (an existing protected path) or as needing a walk. A "no"
// there would let a recursive read through.
func FuzzTreeUnder(f *testing.F) {
	f.Add("/**/.env*", "r/a", "b/.env.local")
	f.Add("~/.ssh/", "", "h/.ssh/id_rsa")
	f.Add("~/.docker/config.json", "h", ".docker/config.json")
	f.Add("secrets/", "", "r/secrets/x")
	f.Add(".env*", "r", "sub/.env")
	f.Add("/**/x/*.key", "r", "x/a.key")
	f.Fuzz(func(t *testing.T, pat, dir, child string) {
		p, err := compilePath(pat)
		if err != nil || strings.HasPrefix(pat, "/") && !strings.HasPrefix(pat, "/**") {
			return // absolute patterns elsewhere cannot match in a temp dir
		}
		dir, child = cleanRel(dir, 4), cleanRel(child, 5)
		if child == "" {
			return
		}
		base, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		b := p.bind(pathSegments(filepath.Join(base, "r")), pathSegments(filepath.Join(base, "h")))
		d := filepath.Join(base, dir)
		full := filepath.Join(d, child)
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			return // a name used both as a file and a directory
		}
		if err := os.WriteFile(full, nil, 0o600); err != nil {
			return
		}
		segs := pathSegments(full)
		if !b.match(segs, foldSegments(segs), true) {
			return
		}
		if hit, walk := b.under(d, foldSegments(pathSegments(d))); hit == "" && !walk {
			t.Fatalf("%q matches %s but under(%s) says nothing there can", pat, full, d)
		}
	})
}
