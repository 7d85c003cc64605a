//go:build linux

package jailinit

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// setupNet runs in the init's fresh network namespace: it brings up
// loopback, listens on 127.0.0.1 and ::1 at each forwarded port and on
// 127.0.0.1 at the proxy's, and hands the listening sockets to the
// supervisor (the forwards first, the proxy's last), which accepts the
// jail's connections on them directly: the sockets stay in the jail's
// namespace, and the supervisor dials the host's side only for a
// connection its decider allows.
func setupNet(ctl Ctl, cfg *Config) error {
	if err := loopbackUp(); err != nil {
		return err
	}
	for _, port := range cfg.Forward {
		if err := passForward(ctl, port); err != nil {
			return err
		}
	}
	fd, err := listenLoopback(port4(cfg.ProxyPort))
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := ctl.Send(MsgListener, nil, fd); err != nil {
		return fmt.Errorf("pass proxy listener: %w", err)
	}
	return nil
}

// passForward listens on 127.0.0.1:port and, when the namespace has IPv6,
// on [::1]:port, and passes both sockets.
func passForward(ctl Ctl, port int) error {
	for i, sa := range []unix.Sockaddr{port4(port), port6(port)} {
		fd, err := listenLoopback(sa)
		if i == 1 && (errors.Is(err, unix.EADDRNOTAVAIL) || errors.Is(err, unix.EAFNOSUPPORT)) {
			return nil // no IPv6 here: nothing to reach through ::1 either
		}
		if err != nil {
			return err
		}
		err = ctl.Send(MsgForward, nil, fd)
		unix.Close(fd)
		if err != nil {
			return fmt.Errorf("pass forwarded port %d: %w", port, err)
		}
	}
	return nil
}

func port4(port int) unix.Sockaddr {
	return &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
}

func port6(port int) unix.Sockaddr {
	return &unix.SockaddrInet6{Port: port, Addr: [16]byte{15: 1}}
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

func listenLoopback(sa unix.Sockaddr) (fd int, err error) {
	family := unix.AF_INET
	if _, ok := sa.(*unix.SockaddrInet6); ok {
		family = unix.AF_INET6
	}
	fd, err = unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("loopback socket: %w", err)
	}
	defer func() {
		if err != nil {
			unix.Close(fd)
		}
	}()
	if err = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return -1, fmt.Errorf("loopback socket: %w", err)
	}
	if family == unix.AF_INET6 {
		if err = unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1); err != nil {
			return -1, fmt.Errorf("loopback socket: %w", err)
		}
	}
	if err = unix.Bind(fd, sa); err != nil {
		return -1, fmt.Errorf("bind %s: %w", sockaddrString(sa), err)
	}
	if err = unix.Listen(fd, 512); err != nil {
		return -1, fmt.Errorf("listen %s: %w", sockaddrString(sa), err)
	}
	return fd, nil
}

func sockaddrString(sa unix.Sockaddr) string {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return fmt.Sprintf("%d.%d.%d.%d:%d", a.Addr[0], a.Addr[1], a.Addr[2], a.Addr[3], a.Port)
	case *unix.SockaddrInet6:
		if a.Addr == [16]byte{15: 1} {
			return fmt.Sprintf("[::1]:%d", a.Port)
		}
		// no net/netip here: it would initialise late (see init)
		var b strings.Builder
		for i := 0; i < 16; i += 2 {
			if i > 0 {
				b.WriteByte(':')
			}
			fmt.Fprintf(&b, "%x", uint16(a.Addr[i])<<8|uint16(a.Addr[i+1]))
		}
		return fmt.Sprintf("[%s]:%d", b.String(), a.Port)
	}
	return "?"
}
