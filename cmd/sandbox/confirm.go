package main

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// confirmation is how a destructive command gets its yes: --yes, or an
// answer typed on a terminal. Off a terminal without --yes it refuses, so
// that a script (or an agent) never deletes anything by default.
type confirmation struct {
	yes   bool
	in    io.Reader
	isTTY func() bool
}

// ask prints question and returns nil only on a yes. what names the act
// for the refusal message ("uninstall --purge").
func (c confirmation) ask(out io.Writer, what, question string) error {
	if c.yes {
		return nil
	}
	if c.isTTY == nil || !c.isTTY() {
		return &exitError{code: exitFailure,
			msg: what + ": standard input is not a terminal, so nothing was done; run it again with --yes to confirm"}
	}
	fmt.Fprintf(out, "%s [y/N] ", question)
	line, _ := bufio.NewReader(io.LimitReader(c.in, 1024)).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return &exitError{code: exitFailure, msg: what + ": not confirmed; nothing was done"}
}
