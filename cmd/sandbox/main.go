// Command sandbox puts a human between an AI coding agent and every
// privileged thing it tries to do. See README.md and docs/.
package main

import "os"

func main() {
	os.Exit(execute(os.Args))
}
