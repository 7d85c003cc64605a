//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package shims

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
