# The two commands on the README's first screen are `make demo` and
# `make test`; both work on a fresh Debian 12 machine.
GO      ?= go
BIN     ?= bin/sandbox


.PHONY: all build deps test demo bench fuzz clean

all: build

# A static binary: no dynamic loader at every hook, shim and jail start
# (the seccomp filter is compiled at `go generate` time, so the binary
# itself needs no cgo).
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/sandbox

# deps installs what the tests need (Debian packages as root, npm clients).
deps:
	bash hack/deps.sh

test: deps
	bash hack/test.sh

demo: build
	bash hack/demo.sh

bench: build
	bash hack/bench.sh

fuzz:
	bash hack/fuzz.sh

clean:
	rm -rf bin test-artifacts
