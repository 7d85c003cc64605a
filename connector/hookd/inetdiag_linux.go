//go:build linux

package hookd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sock_diag's inet part (linux/inet_diag.h), which x/sys/unix lacks.
const (
	inetDiagReqV2 = 56 // sizeof(struct inet_diag_req_v2)
	inetDiagMsg   = 72 // sizeof(struct inet_diag_msg)
	inetDiagInode = 68 // offsetof(struct inet_diag_msg, idiag_inode)
)

// tcpInode asks the kernel (sock_diag, one exact lookup) for the inode of
// the IPv4 TCP socket whose local and remote ends are local and remote:
// the client's end of a connection this server accepted. Unlike reading
// /proc/net/tcp, its cost does not grow with the machine's sockets.
func tcpInode(local, remote *net.TCPAddr) (uint32, error) {
	src, dst := local.IP.To4(), remote.IP.To4()
	if src == nil || dst == nil {
		return 0, errors.New("sock_diag: not an IPv4 connection")
	}
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, fmt.Errorf("sock_diag: %w", err)
	}
	defer unix.Close(fd)
	req := make([]byte, unix.NLMSG_HDRLEN+inetDiagReqV2)
	ne, be := binary.NativeEndian, binary.BigEndian
	ne.PutUint32(req[0:], uint32(len(req)))
	ne.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	ne.PutUint16(req[6:], unix.NLM_F_REQUEST)
	b := req[unix.NLMSG_HDRLEN:]
	b[0], b[1] = unix.AF_INET, unix.IPPROTO_TCP
	ne.PutUint32(b[4:], ^uint32(0)) // any state
	id := b[8:]                     // struct inet_diag_sockid
	be.PutUint16(id[0:], uint16(local.Port))
	be.PutUint16(id[2:], uint16(remote.Port))
	copy(id[4:8], src)
	copy(id[20:24], dst)
	ne.PutUint32(id[40:], ^uint32(0)) // INET_DIAG_NOCOOKIE
	ne.PutUint32(id[44:], ^uint32(0))
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return 0, fmt.Errorf("sock_diag: %w", err)
	}
	buf := make([]byte, 8<<10)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return 0, fmt.Errorf("sock_diag: %w", err)
	}
	msgs, err := syscall.ParseNetlinkMessage(buf[:n])
	if err != nil || len(msgs) == 0 {
		return 0, fmt.Errorf("sock_diag: %v", err)
	}
	m := msgs[0]
	if m.Header.Type == unix.NLMSG_ERROR {
		return 0, errors.New("sock_diag: no such connection")
	}
	if m.Header.Type != unix.SOCK_DIAG_BY_FAMILY || len(m.Data) < inetDiagMsg {
		return 0, errors.New("sock_diag: unexpected answer")
	}
	return ne.Uint32(m.Data[inetDiagInode:]), nil
}
