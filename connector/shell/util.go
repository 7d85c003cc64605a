package shell

import "strings"

func cutByte(s string, b byte) (string, string, bool) {
	if i := strings.IndexByte(s, b); i >= 0 {
		return s[:i], s[i+1:], true
	}
	return s, "", false
}

func containsAny(s, chars string) bool { return strings.ContainsAny(s, chars) }

// baseName is the last element of a command path, lower-cased, without a
// Windows executable suffix, for looking commands up in the tables.
func baseName(name string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if !isLowerASCII(name) {
		name = strings.ToLower(name)
	}
	for _, ext := range []string{".exe", ".cmd", ".bat", ".com"} {
		if strings.HasSuffix(name, ext) {
			return name[:len(name)-len(ext)]
		}
	}
	return name
}

func isLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// systemBinDirs are where a wrapper found by an absolute path is trusted
// to be the real wrapper.
var systemBinDirs = map[string]bool{
	"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/sbin": true, "/usr/sbin": true,
	"/usr/local/sbin": true, "/opt/homebrew/bin": true, "/mingw64/bin": true, "/usr/libexec": true,
}

// trustedCmdPath reports whether a command name can be taken for the
// program it names: a bare name, or a clean absolute path in a system bin
// directory. ./sh or /tmp/x/env may be anything, so they are not unwrapped.
func trustedCmdPath(name string) bool {
	i := strings.LastIndexAny(name, `/\`)
	if i < 0 {
		return true
	}
	dir := name[:i]
	return systemBinDirs[dir] && !strings.Contains(name, "\\")
}
