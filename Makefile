# The two commands on the README's first screen are `make demo` and
# `make test`; both work on a fresh Debian 12 machine.
GO      ?= go
BIN     ?= bin/sandbox
export CGO_ENABLED = 1

.PHONY: all build deps test demo bench fuzz clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/sandbox

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
