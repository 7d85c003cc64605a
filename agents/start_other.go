//go:build !unix

package agents

import (
	"context"
	"errors"
)

func (r *Registry) startSupervisor(context.Context, Record, *Lock, string) (Record, error) {
	return Record{}, errors.ErrUnsupported
}

// InheritedLock: no supervisors on this OS.
func (r *Registry) InheritedLock(string) (*Lock, error) { return nil, errors.ErrUnsupported }

func signalSupervisor(int, bool) error { return errors.ErrUnsupported }
