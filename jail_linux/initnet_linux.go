//go:build linux

package jail_linux

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// setupNet runs in the init's fresh network namespace: it brings up
// loopback, listens on 127.0.0.1:port and hands the listening socket to
// the supervisor, whose proxy then accepts the jail's connections on it
// directly (the socket stays in the jail's namespace; nothing is relayed).
func setupNet(ctl initCtl, port int) error {
	if err := loopbackUp(); err != nil {
		return err
	}
	fd, err := listenLoopback(port)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := ctl.send(msgListener, nil, fd); err != nil {
		return fmt.Errorf("pass proxy listener: %w", err)
	}
	return nil
}

func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

func listenLoopback(port int) (fd int, err error) {
	fd, err = unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	defer func() {
		if err != nil {
			unix.Close(fd)
		}
	}()
	if err = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return -1, fmt.Errorf("proxy socket: %w", err)
	}
	if err = unix.Bind(fd, &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		return -1, fmt.Errorf("proxy bind 127.0.0.1:%d: %w", port, err)
	}
	if err = unix.Listen(fd, 512); err != nil {
		return -1, fmt.Errorf("proxy listen: %w", err)
	}
	return fd, nil
}
