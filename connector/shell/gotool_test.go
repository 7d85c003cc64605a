package shell

import (
	"strings"
	"testing"
)

// shows reports whether effects include one described by must: "opaque",
// "protected", "write:PATH", "read:PATH" or "rread:PATH" (a recursive
// read).
func shows(effects []Effect, must string) bool {
	kind, arg, _ := strings.Cut(must, ":")
	for _, e := range effects {
		switch {
		case kind == "opaque" && e.Kind == Opaque, kind == "protected" && e.Kind == Protected:
			return true
		case kind == "write" && e.Kind == Write && e.Path == arg,
			kind == "read" && e.Kind == Read && e.Path == arg,
			kind == "rread" && e.Kind == Read && e.Recursive && e.Path == arg:
			return true
		}
	}
	return false
}

// runShows checks that each input surfaces its effect, plain and through
// the usual wrappers (env, timeout, bash -c, xargs-free forms).
func runShows(t *testing.T, cases [][2]string) {
	t.Helper()
	for _, tc := range cases {
		for _, form := range []string{"%s", "env %s", "timeout 5 %s", "bash -c '%s'", "nice %s"} {
			in := strings.Replace(form, "%s", tc[0], 1)
			first, _, _ := strings.Cut(tc[0], " ")
			plain := !isAssignWord(first) && !strings.ContainsAny(tc[0], ";&|")
			if strings.Contains(form, "'") && strings.Contains(tc[0], "'") || form != "%s" && form != "bash -c '%s'" && !plain {
				continue
			}
			t.Run(in, func(t *testing.T) {
				got := Analyze(in, testOpts)
				if !shows(got, tc[1]) {
					t.Errorf("Analyze(%q) hides %s: %q", in, tc[1], briefs(got))
				}
			})
		}
	}
}

// The Go toolchain's environment variables and flags that run programs,
// write outside the project or read files (docs/THREAT-MODEL.md, class 12).
func TestGoToolchainAdversarial(t *testing.T) {
	runShows(t, [][2]string{
		// Variables, assigned in every way a shell allows.
		{"GOCACHEPROG=/tmp/x go build ./...", "opaque"},
		{"env GOCACHEPROG=/tmp/x go build ./...", "opaque"},
		{"export GOCACHEPROG=/tmp/x; go build", "opaque"},
		{"declare -x GOCACHEPROG=/tmp/x; go build", "opaque"},
		{"GOTOOLCHAIN=go1.99 go build", "opaque"},
		{"GOFLAGS=-ldflags=-extld=/tmp/x go build", "opaque"},
		{"CC=/tmp/x go build", "opaque"},
		{"CXX=/tmp/x go build", "opaque"},
		{"CGO_LDFLAGS=-fuse-ld=/tmp/x go build", "opaque"},
		{"CGO_CFLAGS_ALLOW=.* go build", "opaque"},
		{"CC_FOR_linux_amd64=/tmp/x go build", "opaque"},
		{"PKG_CONFIG=/tmp/x go build", "opaque"},
		{"GCCGO=/tmp/x go build -compiler=gccgo", "opaque"},
		{"GOENV=/tmp/env go build", "opaque"},
		{"GOCACHE=/tmp/c go build", "opaque"},
		{"GOMODCACHE=/tmp/m go build", "opaque"},
		{"GOPATH=/tmp/p go build", "opaque"},
		{"GOBIN=/tmp/b go install", "opaque"},
		{"GOAUTH='sh -c id' go build", "opaque"},
		{"GOWORK=/tmp/go.work go build", "opaque"},
		{"GOCOVERDIR=/tmp/c go test ./...", "opaque"},
		{"RUSTC_WORKSPACE_WRAPPER=/tmp/x cargo build", "opaque"},
		{"RUSTUP_TOOLCHAIN=/tmp/tc cargo build", "opaque"},
		{"PYTEST_ADDOPTS=--pastebin=all pytest", "opaque"},
		{"PYTEST_PLUGINS=evil pytest", "opaque"},
		{"JAVA_HOME=/tmp/jdk ./gradlew test", "opaque"},
		{"NODE_V8_COVERAGE=/tmp/c npm test", "opaque"},
		// Toolchain flags passed through -ldflags and friends.
		{"go build -ldflags=-extld=/tmp/evil ./...", "opaque"},
		{"go build -ldflags '-linkmode=external -extld=/tmp/x' .", "opaque"},
		{"go build -ldflags \"-extldflags=-fuse-ld=/tmp/x\" .", "opaque"},
		{"go build --ldflags=-extld=/tmp/x .", "opaque"},
		{"go build -ldflags all=-extld=/tmp/x .", "opaque"},
		{"go build -ldflags='-s -w -tmpdir /tmp/x' .", "opaque"},
		{"go build -ldflags='-X main.v=1 -o /tmp/x' .", "opaque"},
		{"go build -gcflags=-cpuprofile=/tmp/p .", "opaque"},
		{"go build -gcflags='all=-d=ssa/check/on' .", "opaque"},
		{"go build -asmflags=-o=/tmp/x .", "opaque"},
		{"go build -gccgoflags=-fplugin=/tmp/x.so .", "opaque"},
		{"go build -ldflags='-s \"-extld /tmp/x\"' .", "opaque"},
		{"go build -ldflags='-s \"unterminated' .", "opaque"},
		{"go test -ldflags -extld=/tmp/x ./...", "opaque"},
		// Programs the go command runs.
		{"go build -toolexec=/tmp/x .", "opaque"},
		{"go build --toolexec /tmp/x .", "opaque"},
		{"go test -exec=/tmp/x ./...", "opaque"},
		{"go test -test.v -exec /tmp/x ./...", "opaque"},
		{"go vet -vettool=/tmp/x ./...", "opaque"},
		{"go vet --vettool /tmp/x ./...", "opaque"},
		{"go build -overlay=o.json .", "opaque"},
		{"go env -w GOFLAGS=-toolexec=x", "opaque"},
		{"go env --w GOFLAGS=x", "opaque"},
		{"go env -u=GOFLAGS", "opaque"},
		{"go build $FLAGS .", "opaque"},
		// Directories and outputs.
		{"go build -C /tmp -o x .", "opaque"},
		{"go build -C=/tmp -o x .", "write:/tmp/x"},
		{"go build --C ../.. -o x .", "opaque"},
		{"go -C /tmp build -o x .", "write:/tmp/x"},
		{"go build -C sub -o ../../x .", "write:sub/../../x"},
		{"go build -o /tmp/x .", "write:/tmp/x"},
		{"go build -o=/tmp/x .", "write:/tmp/x"},
		{"go build --o /tmp/x .", "write:/tmp/x"},
		{"go build --o=/tmp/x .", "write:/tmp/x"},
		{"go test -c -o /tmp/t ./pkg", "write:/tmp/t"},
		{"go test -cpuprofile /tmp/p ./...", "write:/tmp/p"},
		{"go test -memprofile=/tmp/p ./...", "write:/tmp/p"},
		{"go test -blockprofile /tmp/p ./...", "write:/tmp/p"},
		{"go test -mutexprofile /tmp/p ./...", "write:/tmp/p"},
		{"go test -trace=/tmp/p ./...", "write:/tmp/p"},
		{"go test -coverprofile=/tmp/c ./...", "write:/tmp/c"},
		{"go test -outputdir /tmp -cpuprofile c ./...", "write:/tmp/c"},
		{"go test -cpuprofile c -outputdir=/tmp ./...", "write:/tmp"},
		{"go test ./... -args -test.cpuprofile=/tmp/p", "write:/tmp/p"},
		{"go test ./... -test.testlogfile=/tmp/l", "write:/tmp/l"},
		{"go test ./... -test.gocoverdir=/tmp/c", "write:/tmp/c"},
		{"go test -fuzz=F -test.fuzzcachedir=/tmp/f ./x", "write:/tmp/f"},
		{"go build -modfile=/tmp/go.mod ./...", "write:/tmp/go.mod"},
		{"go mod tidy -modfile /tmp/x.mod", "write:/tmp/x.sum"},
		{"go build -pkgdir /tmp/p .", "write:/tmp/p"},
		{"go build -debug-actiongraph=/tmp/a .", "write:/tmp/a"},
		{"go build -debug-trace=/tmp/a .", "write:/tmp/a"},
		{"go build -pgo=/home/u/.ssh/id_rsa .", "read:/home/u/.ssh/id_rsa"},
		{"go mod vendor -o /tmp/v", "write:/tmp/v"},
		{"go doc -http", "opaque"},
		{"go doc --http=:6060 fmt", "opaque"},
		// gofmt.
		{"gofmt -w -r 'a->b' /tmp/x.go", "write:/tmp/x.go"},
		{"gofmt -w /tmp/x.go", "write:/tmp/x.go"},
		{"gofmt --w /tmp", "write:/tmp"},
		{"gofmt -s -w=true ../other", "write:../other"},
		{"gofmt -l ~/.ssh/id_rsa", "read:~/.ssh/id_rsa"},
		{"gofmt -cpuprofile /tmp/p -l .", "write:/tmp/p"},
		{"gofmt $X /tmp/x.go", "opaque"},
		// The same thinking for the other toolchains the policy allows.
		{"cargo build --target-dir /tmp/t", "write:/tmp/t"},
		{"cargo build --target-dir=/tmp/t", "write:/tmp/t"},
		{"cargo test --manifest-path /tmp/x/Cargo.toml", "opaque"},
		{"cargo build -Zunstable-options", "opaque"},
		{"cargo build --config=x", "opaque"},
		{"make test -C /tmp/x", "opaque"},
		{"make test --directory=../x", "opaque"},
		{"pytest --basetemp=/tmp/x", "write:/tmp/x"},
		{"pytest --basetemp ~", "write:~"},
		{"pytest --junitxml /tmp/r.xml", "write:/tmp/r.xml"},
		{"pytest --junit-x=/tmp/r.xml", "write:/tmp/r.xml"},
		{"pytest --debug=/tmp/d.log", "write:/tmp/d.log"},
		{"pytest --cov=x --cov-report=html:/tmp/h", "write:/tmp/h"},
		{"pytest --pastebin=all", "opaque"},
		{"pytest -o addopts=--pastebin=all", "opaque"},
		{"pytest --rootdir=/tmp/other", "opaque"},
		{"pytest -c /tmp/pytest.ini", "opaque"},
		{"pytest /tmp/other/tests", "opaque"},
		{"pytest ../other/test_x.py::test_a", "opaque"},
		{"python -m pytest --basetemp=/tmp/x", "write:/tmp/x"},
		{"python3 -W error -m pytest /tmp/t", "opaque"},
		{"py.test $ARGS", "opaque"},
	})
}

// Everyday toolchain commands keep producing no escalating effect.
func TestGoToolchainEveryday(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"go build", "go build ./...", []string{"exec go build ./..."}},
		{"go test", "go test -race -count=1 -run 'TestX|TestY' -v ./...", []string{"exec go test -race -count=1 -run TestX|TestY -v ./..."}},
		{"go vet", "go vet ./...", []string{"exec go vet ./..."}},
		{"go ldflags", "go build -ldflags='-s -w -X main.version=1.2' -trimpath ./cmd/x", []string{"exec go build -ldflags=-s -w -X main.version=1.2 -trimpath ./cmd/x"}},
		{"go gcflags", "go build -gcflags='all=-N -l' .", []string{"exec go build -gcflags=all=-N -l ."}},
		{"go gcflags checkptr", "go test -gcflags=all=-d=checkptr ./...", []string{"exec go test -gcflags=all=-d=checkptr ./..."}},
		{"go test cover", "go test -cover -coverprofile=cover.out ./...", []string{"exec go test -cover -coverprofile=cover.out ./...", "write cover.out"}},
		{"go test -json", "go test -json ./...", []string{"exec go test -json ./..."}},
		{"go -C inside", "go build -C cmd/x -o bin/x .", []string{"exec go build -C cmd/x -o bin/x .", "write cmd/x/bin/x"}},
		{"go pgo auto", "go build -pgo=auto .", []string{"exec go build -pgo=auto ."}},
		{"go env read", "go env GOFLAGS GOPATH", []string{"exec go env GOFLAGS GOPATH"}},
		{"cgo off", "CGO_ENABLED=0 go build ./...", []string{"exec go build ./..."}},
		{"goos", "GOOS=windows GOARCH=amd64 go vet ./...", []string{"exec go vet ./..."}},
		{"goexperiment", "GOEXPERIMENT=synctest go test ./...", []string{"exec go test ./..."}},
		{"gofmt -l", "gofmt -l .", []string{"exec gofmt -l .", "read ."}},
		{"gofmt -w inside", "gofmt -s -w main.go", []string{"exec gofmt -s -w main.go", "write main.go"}},
		{"cargo test", "cargo test -p core --features x", []string{"exec cargo test -p core --features x"}},
		{"cargo manifest inside", "cargo build --manifest-path sub/Cargo.toml", []string{"exec cargo build --manifest-path sub/Cargo.toml"}},
		{"make -C inside", "make -C sub test", []string{"exec make -C sub test"}},
		{"node env", "NODE_ENV=test npm test", []string{"exec npm test"}},
		{"pytest", "pytest -x -q -k 'not slow' tests/test_a.py::test_b", []string{"exec pytest -x -q -k not slow tests/test_a.py::test_b"}},
		{"python -m pytest", "python3 -m pytest -v --junitxml=report.xml", []string{"exec python3 -m pytest -v --junitxml=report.xml", "write report.xml"}},
	})
}

func FuzzSafeGoToolFlags(f *testing.F) {
	for _, s := range []string{"-s -w", "all=-N -l", "-X 'a.b=c d'", "-extld=x", "\"-d\" checkptr", "-d=ssa/x", "'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		for _, which := range []string{"ldflags", "gcflags", "asmflags", "gccgoflags"} {
			if !safeGoToolFlags(which, v) {
				continue
			}
			// Whatever is accepted names no flag that runs a program or
			// touches a file, in any spelling the tools accept.
			for _, bad := range []string{"extld", "linkmode", "tmpdir", "profile", "importcfg", "toolexec", "-o", "trace", "json", "asmhdr", "pgo"} {
				for _, w := range strings.Fields(strings.NewReplacer("'", " ", "\"", " ").Replace(v)) {
					if name, _, _, ok := goFlag(w); ok && (name == strings.TrimPrefix(bad, "-") || strings.Contains(name, bad) && bad != "-o") {
						t.Fatalf("-%s %q accepted with %q", which, v, w)
					}
				}
			}
		}
	})
}
