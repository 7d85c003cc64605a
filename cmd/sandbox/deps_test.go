package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/testenv"
)

// The start-up rules of docs/STARTUP.md, as a test (tailscale's deptest
// is the model). Every tool call starts `sandbox hook`, every shimmed
// command a shim, every jailed command the jail's init: all of them are
// this one binary, and Go initialises every package a binary links before
// main runs, whichever command argv names. What the binary links is what
// the hook's start-up pays for, so the rules are checked on the package
// list of ./cmd/sandbox as `make build` builds it (CGO_ENABLED=0), for
// each system the hook runs on.

// startupPlatforms are the systems the hook runs on.
var startupPlatforms = []string{"linux", "windows", "darwin"}

// forbiddenDeps are import-path prefixes the binary must not link, each
// with why.
var forbiddenDeps = []struct{ prefix, why string }{
	{"github.com/mark3labs/mcp-go/", "mcp-go is the MCP client of the tests only: " +
		"its server package compiles every JSON Schema metaschema at package initialisation " +
		"(about 4 ms and 4 MB in every sandbox process, each hook call among them) and its " +
		"protocol package alone added 2 MB to the hook's peak RSS; connector/mcpserver speaks " +
		"JSON-RPC itself (rpc.go, wire.go)"},
	{"github.com/santhosh-tekuri/jsonschema", "mcp-go/server's JSON Schema compiler: it compiles " +
		"its metaschemas at package initialisation, in every hook call"},
	{"github.com/google/jsonschema-go", "a JSON Schema library (mcp-go/mcp's): the MCP server " +
		"states its tools' schemas as data and validates none"},
	{"github.com/nats-io/", "the NATS client of team mode belongs to the processes that talk to " +
		"the team's server (approver, serve): linked into this binary its packages would be " +
		"initialised by every hook call, shim and check, which must stay short"},
	{"github.com/seccomp/libseccomp-golang", "seccomp programs are static data generated ahead " +
		"of time (jail_linux/internal/seccompgen, a cgo tool): libseccomp needs cgo, and a cgo " +
		"build costs every Go start of the binary 0.44 ms (glibc) or 0.12 ms (musl)"},
	{"github.com/sandbox-dev/sandbox/jail_linux/internal/seccompgen", "the generator of the " +
		"static seccomp programs (cgo, libseccomp): see the rule above"},
}

// mustLink are packages the hook's own path is made of: a list without
// them is not the binary's (a wrong pattern or platform would pass every
// rule vacuously).
var mustLink = []string{
	"github.com/sandbox-dev/sandbox/connector/hook",
	"github.com/sandbox-dev/sandbox/connector/policy",
	"github.com/sandbox-dev/sandbox/shims",
}

// listedPackage is the part of `go list -json` the rules read.
type listedPackage struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Module     *struct{ Path string }
}

// linkedPackages lists the packages ./cmd/sandbox links on goos, built as
// `make build` builds it.
func linkedPackages(t *testing.T, goos string) []listedPackage {
	t.Helper()
	gobin := testenv.RequireCommand(t, "go")
	cmd := exec.Command(gobin, "list", "-deps", "-json=ImportPath,Dir,GoFiles,Module", ".")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0", "GOFLAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list (GOOS=%s): %v\n%s", goos, err, stderr.String())
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestStartupDeps: the binary links none of the forbidden packages, on
// every system the hook runs on.
func TestStartupDeps(t *testing.T) {
	for _, goos := range startupPlatforms {
		t.Run(goos, func(t *testing.T) {
			pkgs := linkedPackages(t, goos)
			linked := map[string]bool{}
			for _, p := range pkgs {
				linked[p.ImportPath] = true
			}
			for _, want := range mustLink {
				if !linked[want] {
					t.Fatalf("%s is not in the package list of GOOS=%s: the list is not the binary's", want, goos)
				}
			}
			for _, p := range pkgs {
				for _, rule := range forbiddenDeps {
					if strings.HasPrefix(p.ImportPath, rule.prefix) || p.ImportPath == strings.TrimSuffix(rule.prefix, "/") {
						t.Errorf("GOOS=%s: the binary links %s (%s), which every hook call would initialise: %s",
							goos, p.ImportPath, importedBy(t, goos, ".", p.ImportPath), rule.why)
					}
				}
			}
		})
	}
}

// jailInitForbidden are import-path prefixes the jail's init package
// must not link. The init runs during that package's initialisation
// (jail_linux/internal/jailinit), before the packages it does not import
// are initialised, so its imports must be few and early: each of these
// would move a costly initialisation into every jailed command's start
// (dropping them halved the init's package-initialisation samples).
var jailInitForbidden = []string{
	"github.com/containerd/", "google.golang.org/protobuf/", "github.com/cilium/",
	"go.yaml.in/", "github.com/spf13/", "mvdan.cc/sh/",
	"github.com/sandbox-dev/sandbox/launcher", "github.com/sandbox-dev/sandbox/connector/",
	"path/filepath", "net", "runtime/debug", "crypto/", "log/slog",
}

// TestStartupJailInitDeps: the jail's init package links none of
// jailInitForbidden.
func TestStartupJailInitDeps(t *testing.T) {
	const initPkg = "github.com/sandbox-dev/sandbox/jail_linux/internal/jailinit"
	cmd := exec.Command(testenv.RequireCommand(t, "go"), "list", "-deps", initPkg)
	cmd.Env = append(os.Environ(), "GOOS=linux", "CGO_ENABLED=0", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", initPkg, err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, bad := range jailInitForbidden {
			if p == strings.TrimSuffix(bad, "/") || strings.HasPrefix(p, strings.TrimSuffix(bad, "/")+"/") {
				t.Errorf("the jail's init package links %s: it runs during package initialisation, before the packages it does not import, "+
					"and this one would be initialised in every jailed command's start first (%s)", p, importedBy(t, "linux", initPkg, p))
			}
		}
	}
}

// importedBy names the packages of root's graph that import path, to say
// where a forbidden package came in.
func importedBy(t *testing.T, goos, root, path string) string {
	t.Helper()
	cmd := exec.Command(testenv.RequireCommand(t, "go"), "list", "-deps", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, root)
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0", "GOFLAGS=")
	out, err := cmd.Output()
	if err != nil {
		return "importer unknown"
	}
	var by []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && slices.Contains(f[1:], path) {
			by = append(by, f[0])
		}
	}
	return "imported by " + strings.Join(by, ", ")
}

// TestStartupCompilesNoRegexp: none of our packages in the binary
// compiles a regular expression during package initialisation (a
// package-level variable or an init function): it would run in every hook
// call whether or not the expression is used (one anchored 30-character
// pattern was 12 KB and 118 allocations).
// Compile on first use instead, with sync.OnceValue.
func TestStartupCompilesNoRegexp(t *testing.T) {
	module := modulePath(t)
	seen := map[string]bool{}
	for _, goos := range startupPlatforms {
		for _, p := range linkedPackages(t, goos) {
			if p.Module == nil || p.Module.Path != module {
				continue
			}
			for _, name := range p.GoFiles {
				path := filepath.Join(p.Dir, name)
				if seen[path] {
					continue
				}
				seen[path] = true
				for _, at := range initRegexps(t, path) {
					t.Errorf("%s compiles a regexp during package initialisation, in every hook call: compile it on first use (sync.OnceValue)", at)
				}
			}
		}
	}
}

func modulePath(t *testing.T) string {
	t.Helper()
	out, err := exec.Command(testenv.RequireCommand(t, "go"), "list", "-m").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// initRegexps finds the calls of the regexp package's compilers that run
// when file's package is initialised: in package-level variables'
// values and in init functions, outside function literals (which run
// later, if at all).
func initRegexps(t *testing.T, file string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	name := ""
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "regexp" {
			name = "regexp"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return nil
	}
	var found []string
	look := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && strings.Contains(sel.Sel.Name, "Compile") {
						found = append(found, fset.Position(n.Pos()).String())
					}
				}
			}
			return true
		})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				look(d)
			}
		case *ast.FuncDecl:
			if d.Name.Name == "init" && d.Recv == nil && d.Body != nil {
				look(d.Body)
			}
		}
	}
	return found
}
