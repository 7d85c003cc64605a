package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/install"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// refuseNested stops init from creating a .sandbox/ below a project that
// already governs the folder: the nested one would silently take over
// every command run under it. --nested says that is what the user wants.
func refuseNested(f folder.Folder, nested bool) error {
	if f.Exists() || nested {
		return nil
	}
	up, ok := f.Enclosing()
	if !ok {
		return nil
	}
	return &exitError{code: exitFailure, msg: fmt.Sprintf(
		"%s is inside the project %s, whose .sandbox/ already governs it; run `sandbox init` in %s "+
			"(with the agent flags you need), or pass --nested to make a separate project here that takes over this subfolder",
		display.EscapeLine(f.Root), display.EscapeLine(up.Root), display.EscapeLine(up.Root))}
}

func anyAgent(opts *initOptions) bool {
	for _, a := range adapter.Agents() {
		if *opts.agents[a.Name] {
			return true
		}
	}
	return false
}

// wiringExe is the sandbox binary the agents' committed files will run.
// When the `sandbox` on PATH is this very binary, it is the portable
// install.PortableExe (teammates' binaries live elsewhere); otherwise the
// absolute path, with a warning that a teammate's clone cannot use it.
func wiringExe(out io.Writer) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("init: locating the sandbox binary: %w", err)
	}
	if onPath, err := exec.LookPath(install.PortableExe); err == nil && sameFile(onPath, exe) {
		return install.PortableExe, nil
	}
	fmt.Fprintf(out, "warning: the `sandbox` on PATH is not this binary, so the hooks name %s; "+
		"a teammate's clone cannot run that path: put sandbox on PATH and run init again\n", display.EscapeLine(exe))
	return exe, nil
}

func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// printInitSummary says what is in place and what to do next: the two
// terminals, and what to commit.
func printInitSummary(out io.Writer, f folder.Folder, st *userstate.State, rerun bool) {
	m, _ := install.LoadManifest(f)
	if rerun {
		fmt.Fprintln(out, "Already in place:")
		fmt.Fprintf(out, "  %s\n", display.EscapeLine(f.Dir()))
		if _, _, changed, err := store.Pending(f, st); err == nil && !changed {
			fmt.Fprintln(out, "  the policy, accepted on this machine")
		}
		for _, name := range m.Names() {
			fmt.Fprintf(out, "  %s wired\n", name)
		}
	}
	fmt.Fprintln(out, "Next steps:")
	fmt.Fprintln(out, "  1. In a second terminal, start an approver and leave it running:")
	fmt.Fprintf(out, "       sandbox watch %s    (or `sandbox serve %s` for a web page)\n", display.QuoteArg(f.Root), display.QuoteArg(f.Root))
	fmt.Fprintln(out, "     Without one, escalated calls wait for nobody and the agent is told so.")
	if len(m) == 0 {
		fmt.Fprintln(out, "  2. Wire your agent: sandbox init --claude --mcp (or --codex, --cursor, --gemini, --windsurf)")
	} else {
		fmt.Fprintln(out, "  2. Start your agent in this folder; `sandbox doctor` checks the wiring.")
	}
	fmt.Fprintln(out, "  3. Commit .sandbox/policy.yaml, .sandbox/.gitignore, .sandbox/installed.json and the agents' files;")
	fmt.Fprintln(out, "     the rest of .sandbox/ is local state that .sandbox/.gitignore keeps out of git.")
}
