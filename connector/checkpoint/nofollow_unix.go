//go:build unix

package checkpoint

import "syscall"

// oNoFollow makes opening a file that is a symbolic link fail, so that a
// file swapped for a link between lstat and open is not read through it.
const oNoFollow = syscall.O_NOFOLLOW
