package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// noteFolderInForce says which project a command found by walking up from
// the current directory, when that is not the current directory itself,
// and when the project in force is nested inside another one: a nested
// .sandbox/ takes over every command run under it, which must not go
// unsaid.
func noteFolderInForce(w io.Writer, f folder.Folder) {
	wd, err := os.Getwd()
	if err != nil {
		return
	}
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	up, nested := f.Enclosing()
	switch {
	case nested:
		fmt.Fprintf(w, "sandbox: project folder %s (nested inside the project %s, which it overrides here)\n",
			display.EscapeLine(f.Root), display.EscapeLine(up.Root))
	case wd != f.Root:
		fmt.Fprintf(w, "sandbox: project folder %s\n", display.EscapeLine(f.Root))
	}
}
