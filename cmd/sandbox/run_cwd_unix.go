//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// maxCwdReport bounds what is kept of the jail's report: the last bytes
// written, where the final working directory is.
const maxCwdReport = 4096

// cwdReport carries a jailed command's final working directory out of the
// jail (run's --cwd-fd). The command's stdin is one end of a socket pair
// whose other end never writes (so reads see end of file at once, like
// the null device), and the jailed shell's EXIT trap writes `pwd -P` into
// it; after the jail ends, the last line read goes to the caller's file
// descriptor, which the jail never holds (it is close-on-exec from the
// start). Nothing in the project is written for it.
type cwdReport struct {
	out      func(dir string) // where the final directory goes
	jail     *os.File         // the jail's stdin
	done     chan []byte
	close    func()
	finished sync.Once
}

// openCwdReport prepares the report to descriptor fd.
func openCwdReport(fd int) (*cwdReport, error) {
	if fd < 3 {
		return nil, usageErrorf("invalid argument --cwd-fd %d: want a descriptor above 2", fd)
	}
	syscall.CloseOnExec(fd)
	out := os.NewFile(uintptr(fd), "cwd-fd")
	if _, err := out.Stat(); err != nil {
		return nil, usageErrorf("invalid argument --cwd-fd %d: not open: %v", fd, err)
	}
	r, err := newCwdReport(func(dir string) {
		if dir != "" {
			out.WriteString(dir + "\n")
		}
		out.Close()
	})
	if err != nil {
		out.Close()
	}
	return r, err
}

// newCwdReport prepares a report that hands the final directory to out
// ("" when the jail reported none).
func newCwdReport(out func(dir string)) (*cwdReport, error) {
	syscall.ForkLock.RLock() // no fork between the pair's creation and close-on-exec
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		syscall.CloseOnExec(pair[0])
		syscall.CloseOnExec(pair[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("--cwd-fd: %w", err)
	}
	syscall.Shutdown(pair[0], syscall.SHUT_WR)
	mine := os.NewFile(uintptr(pair[0]), "cwd-report")
	r := &cwdReport{out: out, jail: os.NewFile(uintptr(pair[1]), "cwd-stdin"), done: make(chan []byte, 1)}
	r.close = func() { mine.Close() }
	go func() { r.done <- drain(mine) }()
	return r, nil
}

// drain reads f to its end, keeping the last maxCwdReport bytes: a command
// that writes much to its stdin neither blocks nor grows this process.
func drain(f *os.File) []byte {
	var keep []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		keep = append(keep, buf[:n]...)
		if len(keep) > maxCwdReport {
			keep = keep[len(keep)-maxCwdReport:]
		}
		if err != nil {
			return keep
		}
	}
}

// finish reports the final directory once nothing of the jail runs any
// more (the end of every copy of the jail's stdin); once.
func (r *cwdReport) finish() {
	r.finished.Do(func() {
		r.jail.Close()
		data := <-r.done
		r.close()
		dir, ok := lastDir(data)
		if !ok {
			dir = ""
		}
		r.out(dir)
	})
}

// lastDir is the last line of data when it names an existing directory
// by an absolute path. Whatever the jail wrote there at most moves the
// agent's shell, which the command could have asked for with `cd`.
func lastDir(data []byte) (string, bool) {
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	dir := string(lines[len(lines)-1])
	if !filepath.IsAbs(dir) || bytes.IndexByte([]byte(dir), 0) >= 0 {
		return "", false
	}
	fi, err := os.Stat(dir)
	return dir, err == nil && fi.IsDir()
}
