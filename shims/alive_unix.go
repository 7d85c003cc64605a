//go:build unix

package shims

import (
	"os"
	"syscall"
)

// holdAlive creates path and locks it for as long as this process lives
// (the kernel drops the lock when it dies, SIGKILL included). The file is
// locked under another name and renamed into place, so that it is never
// seen unlocked while this process lives. release removes it, then
// unlocks.
func holdAlive(path string) (release func()) {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		return func() {}
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil || os.Rename(tmp, path) != nil {
		f.Close()
		os.Remove(tmp)
		return func() {}
	}
	return func() { os.Remove(path); f.Close() }
}

// aliveGone reports whether the liveness file at path exists and nobody
// holds its lock: the shim that made it is dead.
func aliveGone(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false // held: alive (or an error: the cautious answer)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return true
}
