//go:build linux

package watch

import (
	"golang.org/x/sys/unix"
)

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

// rawMode switches the terminal on fd to single-key input: no line
// buffering, no echo, no Ctrl-Z suspend (which would leave the terminal in
// this mode); Ctrl-C still interrupts. restore puts the old mode back and
// may be called more than once.
func rawMode(fd int) (restore func(), err error) {
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Lflag &^= unix.ICANON | unix.ECHO | unix.IEXTEN
	t.Iflag &^= unix.IXON
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	t.Cc[unix.VSUSP] = 0
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &t); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, unix.TCSETS, old) }, nil
}

// flushInput discards what was typed on the terminal but not read yet, so
// that keys pressed before a request was shown never decide it.
func flushInput(fd int) {
	_ = unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH)
}

// termSize is the terminal's height and width, or zeros when unknown.
func termSize(fd int) (rows, cols int) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0
	}
	return int(ws.Row), int(ws.Col)
}
