package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// printFirstAcceptance is `policy accept` on a folder with nothing
// accepted on this machine yet (a teammate's fresh clone, a new machine):
// it says what accepting means and shows the whole policy, numbered,
// before the question, rather than a diff against nothing.
func printFirstAcceptance(out io.Writer, f folder.Folder, current []byte) {
	fmt.Fprintf(out, "No policy is accepted for %s on this machine yet (a fresh clone or a new machine),\n", display.EscapeLine(f.Root))
	fmt.Fprintln(out, "so every call of the agent escalates to a human. This is the folder's policy: what it lets the")
	fmt.Fprintln(out, "agent do without asking, what goes to a human and what is refused. Read it before accepting it.")
	fmt.Fprintln(out)
	lines := strings.Split(strings.TrimSuffix(string(current), "\n"), "\n")
	for i, l := range lines {
		fmt.Fprintf(out, "%4d  %s\n", i+1, display.EscapeLine(l))
	}
	fmt.Fprintln(out)
}
