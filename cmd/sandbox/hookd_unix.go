//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// detached starts a process in a session of its own.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
