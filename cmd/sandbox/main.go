// Command sandbox puts a human between an AI coding agent and every
// privileged thing it tries to do. See README.md and docs/.
package main

import (
	"os"

	"github.com/sandbox-dev/sandbox/launcher"
	"github.com/sandbox-dev/sandbox/shims"
)

func main() {
	launcher.MaybeInit() // when this is `sandbox run`'s jail init, run it and exit
	shims.MaybeRun()     // when called as a PATH shim (git, npm, curl, ...), run it and exit
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		os.Exit(hookMain(os.Args[2:])) // the hot path: see cmd_hook.go
	}
	os.Exit(execute(os.Args))
}
