//go:build linux

package shims

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TCGETS
