package shell

import (
	"strings"
	"sync"
)

// Variables that change which program runs, what it loads, or how the
// shell parses: setting, exporting or unsetting them escalates.
// Built on first use (see toolSpecs).
var dangerousVars = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"PATH": "", "BASH_ENV": "", "ENV": "", "SHELLOPTS": "", "BASHOPTS": "",
		"PS4": "", "PS0": "", "PS1": "", "PROMPT_COMMAND": "", "IFS": "", "CDPATH": "",
		"HISTFILE": "", "FPATH": "", "ZDOTDIR": "", "INPUTRC": "", "EXECIGNORE": "",
		"BASH_LOADABLES_PATH": "", "BASH_XTRACEFD": "", "GLOBIGNORE": "", "SHELL": "",
		"HOME":            "it moves ~ and the configuration files programs read",
		"XDG_CONFIG_HOME": "", "XDG_CONFIG_DIRS": "", "XDG_DATA_HOME": "",
		"PAGER": "", "GIT_PAGER": "", "MANPAGER": "", "MANOPT": "", "SYSTEMD_PAGER": "",
		"EDITOR": "", "VISUAL": "", "BROWSER": "", "LESSOPEN": "", "LESSCLOSE": "",
		"LESS": "", "LESSKEY": "", "LESSKEYIN": "", "SUDO_ASKPASS": "", "SSH_ASKPASS": "",
		"PYTHONPATH": "", "PYTHONSTARTUP": "", "PYTHONHOME": "", "PYTHONUSERBASE": "",
		"PYTHONWARNINGS": "", "PYTHONBREAKPOINT": "", "PYTHONINSPECT": "", "PYTHONEXECUTABLE": "",
		"NODE_OPTIONS": "", "NODE_PATH": "", "PERL5OPT": "", "PERL5LIB": "", "PERLLIB": "",
		"PERL5DB": "", "RUBYOPT": "", "RUBYLIB": "", "GEM_HOME": "", "GEM_PATH": "",
		"BUNDLE_GEMFILE": "", "JAVA_TOOL_OPTIONS": "", "_JAVA_OPTIONS": "",
		"JDK_JAVA_OPTIONS": "", "CLASSPATH": "", "MAVEN_OPTS": "", "GRADLE_OPTS": "",
		"DOTNET_STARTUP_HOOKS": "", "GOFLAGS": "", "GOROOT": "", "GOPATH": "", "GOTOOLCHAIN": "",
		"GOENV": "", "GOPROXY": "", "GOMODCACHE": "", "GONOSUMDB": "", "GONOSUMCHECK": "",
		"GOSUMDB": "", "GOINSECURE": "", "GOPRIVATE": "", "GONOPROXY": "", "GOEXE": "",
		"CGO_CFLAGS": "", "CGO_CPPFLAGS": "", "CGO_CXXFLAGS": "", "CGO_LDFLAGS": "", "CGO_FFLAGS": "",
		"CC": "", "CXX": "", "CPP": "", "LD": "", "AR": "", "AS": "", "CFLAGS": "",
		"CXXFLAGS": "", "CPPFLAGS": "", "LDFLAGS": "", "MAKEFLAGS": "", "MAKEFILES": "",
		"GNUMAKEFLAGS": "", "MAKE": "", "RUSTC": "", "RUSTC_WRAPPER": "", "RUSTFLAGS": "",
		"RUSTDOCFLAGS": "", "GCONV_PATH": "", "LOCPATH": "", "NLSPATH": "", "TERMINFO": "",
		"HOSTALIASES": "", "RESOLV_HOST_CONF": "",
		// Toolchains: programs they run, where they write, what they load.
		"GOCACHEPROG": "runs a program as the Go build cache", "GOAUTH": "runs programs to authenticate",
		"GOCACHE": "moves where go writes", "GOBIN": "moves where go install writes",
		"GOTMPDIR": "moves where go writes", "GOCOVERDIR": "moves where go writes",
		"GOWORK": "builds with another workspace file", "GOTOOLDIR": "", "GCCGO": "", "GOVCS": "",
		"GOROOT_FINAL": "", "PKG_CONFIG": "", "FC": "", "RUSTDOC": "", "RUSTUP_TOOLCHAIN": "",
		"RIPGREP_CONFIG_PATH": "rg reads options (--pre runs programs) from the file", "GREP_OPTIONS": "",
		"JAVA_HOME": "", "GRADLE_USER_HOME": "", "MAVEN_ARGS": "", "M2_HOME": "", "MAVEN_HOME": "",
		// The C compiler cgo (and cargo, pip, node-gyp) runs: where gcc
		// finds cc1, as and ld (COMPILER_PATH=./x go build ran ./x/cc1),
		// what it includes and links, where it writes dependency files;
		// clang's argument overrides.
		"COMPILER_PATH": "gcc runs its cc1, as and ld from there", "GCC_EXEC_PREFIX": "gcc runs its cc1, as and ld from there",
		"LIBRARY_PATH": "", "CPATH": "", "C_INCLUDE_PATH": "", "CPLUS_INCLUDE_PATH": "", "OBJC_INCLUDE_PATH": "",
		"DEPENDENCIES_OUTPUT": "gcc writes the file", "SUNPRO_DEPENDENCIES": "gcc writes the file",
		"GCC_COMPARE_DEBUG": "", "CCC_OVERRIDE_OPTIONS": "clang adds the options it holds",
		"PKG_CONFIG_PATH": "", "PKG_CONFIG_LIBDIR": "", "PKG_CONFIG_SYSROOT_DIR": "",
		// Files tools read their options or data from.
		"MAGIC":       "file reads the magic file (and prints its lines in warnings)",
		"TAR_OPTIONS": "tar takes options from it (--to-command runs programs)",
		"GZIP":        "", "BZIP": "", "BZIP2": "", "XZ_OPT": "", "XZ_DEFAULTS": "",
		"GNUPGHOME":    "gpg (git log --show-signature) reads its configuration there",
		"OPENSSL_CONF": "OpenSSL loads the modules its configuration names", "OPENSSL_MODULES": "", "OPENSSL_ENGINES": "",
	}
})

// safeVarsInFamily are harmless names inside a dangerous prefix family
// (CGO_ENABLED=0 go build, NODE_ENV=test npm test).
var safeVarsInFamily = map[string]bool{"CGO_ENABLED": true, "NODE_ENV": true, "NODE_NO_WARNINGS": true}

// Prefixes of variable families that change what runs.
var dangerousPrefixes = []string{
	"LD_", "DYLD_", "GIT_", "BASH_FUNC_", "NPM_CONFIG_", "YARN_", "CARGO_",
	"PIP_", "UV_", "POETRY_", "PNPM_", "BUN_", "DENO_", "COMPOSER_", "DOTNET_", "COMPLUS_",
	// cgo's compilers and flag allowlists (CGO_CFLAGS_ALLOW, ...), the
	// cross compilers cgo runs (CC_FOR_linux_amd64), rustc wrappers and
	// toolchains, pytest options and plugins, node's loaders and outputs.
	"CGO_", "CC_FOR_", "CXX_FOR_", "RUSTC_", "RUSTUP_", "PYTEST_", "NODE_", "TS_NODE_",
}

// dangerousVar returns why assigning name escalates, or "".
func dangerousVar(name string) string {
	if reason, ok := dangerousVars()[name]; ok {
		if reason == "" {
			reason = "changes what programs run or load"
		}
		return reason
	}
	if safeVarsInFamily[name] {
		return ""
	}
	upper := strings.ToUpper(name) // npm reads npm_config_* in any case
	for _, p := range dangerousPrefixes {
		if strings.HasPrefix(upper, p) {
			return "changes what programs run or load"
		}
	}
	return ""
}
