# The two commands on the README's first screen are `make demo` and
# `make test`; both work on a fresh Debian 12 machine.
GO      ?= go
BIN     ?= bin/sandbox


.PHONY: all build deps test demo bench fuzz clean

all: build

# A static binary: no dynamic loader at every hook, shim and jail start
# (the seccomp filter is compiled at `go generate` time, so the binary
# itself needs no cgo). It is put in place with large writes (dd, 1 MiB
# blocks) and a rename rather than left as the linker wrote it: the page
# cache then holds it in large folios, each page fault maps many pages,
# and every short process (hook, shim, check, jail init) starts 0.3-0.8 ms
# sooner for as long as the file stays cached (after it is evicted, the
# next start reads it back in small pages). hack/bench.sh measures this
# build.
build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN).link ./cmd/sandbox
	dd if=$(BIN).link of=$(BIN).new bs=1M status=none
	chmod 755 $(BIN).new
	mv -f $(BIN).new $(BIN)
	rm -f $(BIN).link

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
