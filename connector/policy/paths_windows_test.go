//go:build windows

package policy

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
	"golang.org/x/sys/windows"
)

// winEnv is a project (with .sandbox\, .git\hooks\ and src\), a home and
// a state dir in a temporary directory, and an engine enforcing the
// default policy there. Its paths are long names (os.MkdirTemp may hand
// out a short one under Windows' own %TEMP%).
type winEnv struct {
	root, home, state string
	e                 *Engine
}

func newWinEnv(t *testing.T) winEnv {
	t.Helper()
	base, err := longPathName(testenv.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	w := winEnv{root: filepath.Join(base, "proj"), home: filepath.Join(base, "home"),
		state: filepath.Join(base, "state", "sandbox")}
	for _, d := range []string{w.home, w.state, filepath.Join(w.root, ".sandbox"),
		filepath.Join(w.root, ".git", "hooks"), filepath.Join(w.root, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("XDG_STATE_HOME", filepath.Dir(w.state))
	t.Setenv("LOCALAPPDATA", filepath.Dir(w.state))
	p, err := Parse("policy.yaml", DefaultYAML())
	if err != nil {
		t.Fatal(err)
	}
	if w.e, err = New(w.root, p, Options{Home: w.home, StateDir: w.state}); err != nil {
		t.Fatal(err)
	}
	return w
}

// shortName is the 8.3 name Windows gives p, or "" when the volume has
// none (8.3 names can be turned off per volume).
func shortName(t *testing.T, p string) string {
	t.Helper()
	in, err := windows.UTF16PtrFromString(p)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n, err := windows.GetShortPathName(in, &buf[0], uint32(len(buf)))
	if err != nil {
		t.Fatalf("GetShortPathName(%s): %v", p, err)
	}
	s := windows.UTF16ToString(buf[:n])
	if strings.EqualFold(s, p) {
		return ""
	}
	return s
}

// spellings are the ways Windows lets a program name rel below root: all
// of them open the same file.
func spellings(t *testing.T, root, rel string) map[string]string {
	t.Helper()
	abs := filepath.Join(root, rel)
	first, rest, _ := strings.Cut(rel, `\`)
	vol := filepath.VolumeName(root)
	s := map[string]string{
		"plain":                  abs,
		"lower-case drive":       strings.ToLower(vol) + abs[len(vol):],
		"upper case":             strings.ToUpper(abs),
		"forward slashes":        filepath.ToSlash(abs),
		"mixed separators":       root + "/" + first + `\` + rest,
		"doubled separators":     root + `\\` + first + `\\\` + rest,
		`\\?\ prefix`:            `\\?\` + abs,
		`\\?\ prefix, slashes`:   `//?/` + filepath.ToSlash(abs),
		"MSYS drive":             "/" + strings.ToLower(vol[:1]) + filepath.ToSlash(abs[len(vol):]),
		"rooted, no drive":       abs[len(vol):],
		"trailing dot":           filepath.Join(root, first+".", rest),
		"trailing space":         filepath.Join(root, first+" ", rest),
		"trailing dots, spaces":  filepath.Join(root, first+". . .", rest),
		"file's trailing dot":    abs + ".",
		"::$DATA":                abs + "::$DATA",
		"named stream":           abs + ":evil",
		"::$INDEX_ALLOCATION":    filepath.Join(root, first+"::$INDEX_ALLOCATION", rest),
		"$I30:$INDEX_ALLOCATION": filepath.Join(root, first+":$I30:$INDEX_ALLOCATION", rest),
		"dot-dot":                filepath.Join(root, "src") + `\..\` + rel,
		"dot":                    root + `\.\` + first + `\.\` + rest,
		"relative":               rel,
		"relative, dot-dot":      `src\..\` + rel,
	}
	if sh := shortName(t, filepath.Join(root, first)); sh != "" {
		s["8.3 short name"] = filepath.Join(sh, rest)
	}
	if sh := shortName(t, root); sh != "" {
		s["8.3 short root"] = filepath.Join(sh, rel)
	}
	return s
}

func TestWindowsPathSpellingsDecideAlike(t *testing.T) {
	w := newWinEnv(t)
	for _, tc := range []struct {
		rel  string
		want Tier
	}{
		{`.sandbox\policy.yaml`, Deny},
		{`.git\hooks\pre-commit`, Escalate},
		{`src\main.go`, Allow},
	} {
		for name, p := range spellings(t, w.root, tc.rel) {
			t.Run(tc.rel+"/"+name, func(t *testing.T) {
				if d := w.e.Write(p, ""); d.Decision != tc.want {
					t.Fatalf("Write(%q) = %v (%s), want %v", p, d.Decision, d.Reasons, tc.want)
				}
			})
		}
	}
}

func TestWindowsShortNamesExpanded(t *testing.T) {
	w := newWinEnv(t)
	long := filepath.Join(w.root, "a directory with a long name", "another long file name.txt")
	if err := os.MkdirAll(filepath.Dir(long), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(long, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	short := shortName(t, long)
	if short == "" {
		testenv.Skip(t, "this volume has no 8.3 short names")
	}
	t.Logf("short name of %s: %s", long, short)
	for _, p := range []string{short, filepath.Join(filepath.Dir(short), "not-yet.txt")} {
		got, err := w.e.res.resolve(p, w.root)
		want := filepath.Join(filepath.Dir(long), filepath.Base(p))
		if p == short {
			want = long
		}
		if err != nil || !strings.EqualFold(got, want) {
			t.Errorf("resolve(%q) = %q, %v; want %q", p, got, err, want)
		}
	}
	if d := w.e.Read(shortName(t, w.state), ""); d.Decision != Deny {
		t.Errorf("the state dir by its short name: %v (%s), want deny", d.Decision, d.Reasons)
	}
}

func TestWindowsPathsOutsideOrOdd(t *testing.T) {
	w := newWinEnv(t)
	for _, tc := range []struct {
		name, p string
		want    Tier
	}{
		{"sibling with the root as prefix", w.root + `-evil\x`, Escalate},
		{"sibling, upper case", strings.ToUpper(w.root) + `EVIL\x`, Escalate},
		{"UNC share", `\\server\share\x`, Escalate},
		{`\\?\UNC`, `\\?\UNC\server\share\x`, Escalate},
		{"device namespace", `\\.\C:\x`, Escalate},
		{"GLOBALROOT", `\\?\GLOBALROOT\Device\HarddiskVolume1\x`, Escalate},
		{"NT namespace", `\??\C:\x`, Escalate},
		{"drive-relative", filepath.VolumeName(w.root) + `src\x`, Escalate},
		{"home", `~\.bashrc`, Escalate},
		{"state dir", filepath.Join(w.state, "key"), Deny},
		{"state dir, upper case", strings.ToUpper(filepath.Join(w.state, "key")), Deny},
		{"state dir, trailing dot", w.state + `.\key`, Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := w.e.Write(tc.p, ""); d.Decision != tc.want {
				t.Fatalf("Write(%q) = %v (%s), want %v", tc.p, d.Decision, d.Reasons, tc.want)
			}
		})
	}
}

// Reserved device names open a device, whatever the directory and the
// extension: they never count as a file in the project. (NUL itself is
// the null device, allowed: nul_test.go.)
func TestWindowsReservedNames(t *testing.T) {
	w := newWinEnv(t)
	for _, n := range []string{"nul.txt", "CON", "con.log", "PRN", "AUX", "COM1", "com9.x", "LPT1", "lpt¹",
		"CONIN$", "conout$", "NUL.", "nul ", `src\aux.c`, `src\COM3\x`} {
		t.Run(n, func(t *testing.T) {
			if d := w.e.Write(n, ""); d.Decision == Allow {
				t.Fatalf("Write(%q) allowed: a reserved device name", n)
			}
		})
	}
	for _, n := range []string{"NULL", "console.txt", "COM10", "LPT", "auxiliary", "nul_", "CONFIG"} {
		t.Run("not reserved "+n, func(t *testing.T) {
			if d := w.e.Write(n, ""); d.Decision != Allow {
				t.Fatalf("Write(%q) = %v (%s): not a device name", n, d.Decision, d.Reasons)
			}
		})
	}
}

// A junction (mklink /J, no privilege needed) redirects what is below it
// like a symbolic link, though Go reports it as an irregular file.
func TestWindowsJunctionsFollowed(t *testing.T) {
	w := newWinEnv(t)
	for _, tc := range []struct {
		name, target string
		want         Tier
	}{
		{"into .sandbox", filepath.Join(w.root, ".sandbox"), Deny},
		{"into .git hooks", filepath.Join(w.root, ".git", "hooks"), Escalate},
		{"out to home", w.home, Escalate},
		{"into the state dir", w.state, Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			link := filepath.Join(w.root, "jn-"+strings.ReplaceAll(tc.name, " ", "-"))
			out, err := exec.Command("cmd", "/c", "mklink", "/J", link, tc.target).CombinedOutput()
			if _, serr := os.Lstat(link); err != nil || serr != nil {
				if v := wineVersion(); v != "" {
					t.Logf("NOT CHECKED under Wine %s: it cannot create junctions (%q)", v, out)
					return
				}
				t.Fatalf("mklink /J: %v %s", err, out)
			}
			if d := w.e.Write(filepath.Join(link, "x"), ""); d.Decision != tc.want {
				t.Fatalf("Write through a junction to %s = %v (%s), want %v", tc.target, d.Decision, d.Reasons, tc.want)
			}
		})
	}
}

// wineVersion is Wine's version, "" on Windows.
func wineVersion() string {
	p := windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version")
	if p.Find() != nil {
		return ""
	}
	return "8+"
}
