package broker

import (
	"errors"
	"strings"
	"testing"
)

func TestRunsThroughCmd(t *testing.T) {
	for _, tc := range []struct {
		path string
		want bool
	}{
		{`C:\proj\build.bat`, true},
		{`C:\proj\build.CMD`, true},
		{`C:\proj\Build.Bat`, true},
		{`C:\proj\build.bat.`, true},
		{`C:\proj\build.bat . .`, true},
		{`C:\proj\build.bat::$DATA`, true},
		{`C:\proj\build.bat:stream`, true},
		{`C:/proj/build.cmd`, true},
		{`C:\Windows\System32\cmd.exe`, true},
		{`C:\Windows\System32\CMD.EXE`, true},
		{`build.bat`, true},
		{`C:\proj\build.exe`, false},
		{`C:\proj\bat`, false},
		{`C:\proj\build.bat.exe`, false},
		{`C:\proj.bat\build.exe`, false},
		{`C:\Windows\System32\cmdkey.exe`, false},
		{`C:\tools\powershell.exe`, false},
		{`/usr/bin/git`, false},
	} {
		if got := runsThroughCmd(tc.path); got != tc.want {
			t.Errorf("runsThroughCmd(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}

func TestCheckCmdArgs(t *testing.T) {
	const bat = `C:\proj\build.bat`
	for _, tc := range []struct {
		name string
		path string
		args []string
		ok   bool
	}{
		{"plain words", bat, []string{"release", "--verbose", "-j4"}, true},
		{"flag with value", bat, []string{"--config=release", "a,b;c"}, true},
		{"paths", bat, []string{`C:\proj\out`, "../x/y.txt", `\\server\share\f`}, true},
		{"spaces are quoted by Go", bat, []string{"two words", "tab\there"}, true},
		{"empty argument", bat, []string{""}, true},
		{"glob and braces", bat, []string{"*.go", "a?", "[x]", "{y}", "#1", "$HOME", "~", "@file", "'single'"}, true},
		{"ampersand", bat, []string{"x&calc"}, false},
		{"ampersand in spaces", bat, []string{"a & calc"}, false},
		{"pipe", bat, []string{"x|calc"}, false},
		{"redirect out", bat, []string{"x>C:\\evil"}, false},
		{"redirect in", bat, []string{"<in"}, false},
		{"percent expansion", bat, []string{"%PATH%"}, false},
		{"percent alone", bat, []string{"100%"}, false},
		{"delayed expansion", bat, []string{"!USERNAME!"}, false},
		{"double quote", bat, []string{`"&calc&"`}, false},
		{"lone quote", bat, []string{`a"b`}, false},
		{"caret", bat, []string{"a^&b"}, false},
		{"parentheses", bat, []string{"(calc)"}, false},
		{"backquote", bat, []string{"`calc`"}, false},
		{"newline", bat, []string{"a\ncalc"}, false},
		{"carriage return", bat, []string{"a\rcalc"}, false},
		{"NUL", bat, []string{"a\x00b"}, false},
		{"non-ASCII quote lookalike", bat, []string{"\uff02&calc"}, false},
		{"non-ASCII letter", bat, []string{"café"}, false},
		{"invalid UTF-8", bat, []string{"a\xffb"}, false},
		{"quoted with trailing backslash", bat, []string{`C:\my dir\`}, false},
		{"trailing backslash without spaces", bat, []string{`C:\dir\`}, true},
		{"the second argument", bat, []string{"ok", "x&calc"}, false},
		{"cmd.exe too", `C:\Windows\System32\cmd.exe`, []string{"/c", "dir&calc"}, false},
		{"cmd.exe with plain words", `C:\Windows\System32\cmd.exe`, []string{"/c", "ver"}, true},
		{"batch path with percent", `C:\a%PATH%b\build.bat`, nil, false},
		{"batch path with ampersand", `C:\x&calc\build.bat`, nil, false},
		{"batch path with spaces", `C:\my proj\build.bat`, []string{"release"}, true},
		{"not a batch file", `C:\proj\tool.exe`, []string{"x&calc", "%PATH%", `"`}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := checkCmdArgs(tc.path, append([]string{"argv0"}, tc.args...))
			if tc.ok && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.ok && (!errors.Is(err, ErrShell) || !strings.Contains(err.Error(), "BatBadBut")) {
				t.Fatalf("checkCmdArgs = %v, want a BatBadBut refusal wrapping ErrShell", err)
			}
		})
	}
}

// Argv[0] is the name as the approver saw it; the resolved path is what
// is checked.
func TestCheckCmdArgsIgnoresArgv0(t *testing.T) {
	if err := checkCmdArgs(`C:\proj\build.bat`, []string{"build&calc", "ok"}); err != nil {
		t.Fatalf("argv[0] is not passed to cmd.exe as an argument: %v", err)
	}
}

func FuzzCheckCmdArgs(f *testing.F) {
	for _, s := range []string{"release", "x&calc", "%PATH%", `a"b`, "two words", `C:\my dir\`, "\uff02"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		err := checkCmdArgs(`C:\p\b.bat`, []string{"b", arg})
		if err == nil && (strings.ContainsAny(arg, cmdSpecial+"\r\n\x00") || strings.ContainsFunc(arg, func(r rune) bool { return r > 0x7e })) {
			t.Fatalf("accepted %q", arg)
		}
		if err != nil && !errors.Is(err, ErrShell) {
			t.Fatalf("error %v does not wrap ErrShell", err)
		}
	})
}
