//go:build linux

package jail_linux

import (
	"encoding/binary"
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// boundSocket is a unix socket bound to a path, as the kernel's socket
// table (sock_diag) tells it: the path it was bound to and the file the
// bind made (dev and the low 32 bits of its inode, the kernel's encoding).
type boundSocket struct {
	path     string
	dev, ino uint32
}

// sock_diag's unix part (linux/unix_diag.h), which x/sys/unix lacks.
const (
	udiagShowName = 0x1
	udiagShowVFS  = 0x2
	unixDiagName  = 0
	unixDiagVFS   = 1
	unixDiagReq   = 24 // sizeof(struct unix_diag_req)
	unixDiagMsg   = 16 // sizeof(struct unix_diag_msg)
)

var errSockDiag = errors.New("sock_diag")

// boundSockets lists every unix socket of this network namespace that is
// bound to a path (abstract and unnamed ones are left out), in one
// netlink dump: a few hundred microseconds on a desktop's few thousand
// sockets, where walking a cluttered /tmp took milliseconds.
func boundSockets() (out []boundSocket, err error) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errSockDiag, err)
	}
	defer func() { _ = unix.Close(fd) }()
	req := make([]byte, unix.NLMSG_HDRLEN+unixDiagReq)
	le := binary.NativeEndian
	le.PutUint32(req[0:], uint32(len(req)))
	le.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	le.PutUint16(req[6:], unix.NLM_F_REQUEST|unix.NLM_F_DUMP)
	body := req[unix.NLMSG_HDRLEN:]
	body[0] = unix.AF_UNIX
	le.PutUint32(body[4:], ^uint32(0)) // every state: listening, bound datagram, connected
	le.PutUint32(body[12:], udiagShowName|udiagShowVFS)
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, fmt.Errorf("%w: %v", errSockDiag, err)
	}
	buf := make([]byte, 64<<10)
	for {
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errSockDiag, err)
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errSockDiag, err)
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				return nil, fmt.Errorf("%w: the kernel refused the dump", errSockDiag)
			}
			if s, ok := parseUnixDiag(m.Data); ok {
				out = append(out, s)
			}
		}
	}
}

// parseUnixDiag reads one unix_diag_msg and its attributes; ok only for
// a socket bound to a path (which always has its file's identity).
func parseUnixDiag(b []byte) (boundSocket, bool) {
	var s boundSocket
	if len(b) < unixDiagMsg {
		return s, false
	}
	le := binary.NativeEndian
	var name, vfs bool
	for a := b[unixDiagMsg:]; len(a) >= unix.SizeofRtAttr; {
		l, typ := int(le.Uint16(a[0:])), le.Uint16(a[2:])
		if l < unix.SizeofRtAttr || l > len(a) {
			return s, false
		}
		v := a[unix.SizeofRtAttr:l]
		switch {
		case typ == unixDiagName && len(v) > 0 && v[0] != 0: // not abstract
			s.path, name = string(v), true
			if i := indexNUL(v); i >= 0 {
				s.path = string(v[:i])
			}
		case typ == unixDiagVFS && len(v) >= 8:
			s.ino, s.dev, vfs = le.Uint32(v[0:]), le.Uint32(v[4:]), true
		}
		adv := (l + unix.RTA_ALIGNTO - 1) &^ (unix.RTA_ALIGNTO - 1)
		if adv >= len(a) {
			break
		}
		a = a[adv:]
	}
	return s, name && vfs
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// sameFile reports whether st is the file the kernel's table names:
// its dev_t is the kernel's own encoding (major << 20 | minor), and only
// the low 32 bits of the inode number are given.
func (s boundSocket) sameFile(st *unix.Stat_t) bool {
	return unix.Major(st.Dev) == s.dev>>20 && unix.Minor(st.Dev) == s.dev&(1<<20-1) && uint32(st.Ino) == s.ino
}
