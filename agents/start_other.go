//go:build !unix

package agents

import (
	"context"
	"errors"
	"os"
)

type pendingSupervisor struct{ pid int }

func (r *Registry) launchSupervisor(string, *Lock, string) (*pendingSupervisor, error) {
	return nil, errors.ErrUnsupported
}

func (p *pendingSupervisor) proceed(context.Context) (Record, error) {
	return Record{}, errors.ErrUnsupported
}

func (p *pendingSupervisor) abort() {}

// AwaitGate: no supervisors on this OS.
func AwaitGate() error { return errors.ErrUnsupported }

// InheritedStarted: no supervisors on this OS.
func InheritedStarted() *os.File { return nil }

// InheritedLock: no supervisors on this OS.
func (r *Registry) InheritedLock(string) (*Lock, error) { return nil, errors.ErrUnsupported }

func signalSupervisor(int, bool) error { return errors.ErrUnsupported }
