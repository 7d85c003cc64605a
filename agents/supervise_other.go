//go:build !unix

package agents

import (
	"context"
	"errors"
	"io"
	"os"

	"github.com/sandbox-dev/sandbox/launcher"
)

func (s *supervisor) interactive(context.Context, Record) (launcher.Result, error) {
	return launcher.Result{}, errors.ErrUnsupported
}

// Attach: no agents' terminals on this OS.
func (r *Registry) Attach(context.Context, string, *os.File, io.Writer) error {
	return errors.ErrUnsupported
}
