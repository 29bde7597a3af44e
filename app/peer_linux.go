package app

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// conn finds the process at the other end of c: SO_PEERCRED on a Unix
// socket, the owner of the client's socket on a TCP connection.
func (f *peerFinder) conn(c net.Conn, now time.Time) (Peer, bool) {
	if uc, ok := c.(*net.UnixConn); ok {
		return unixPeer(uc)
	}
	server, err := netip.ParseAddrPort(c.LocalAddr().String())
	if err != nil {
		return Peer{}, false
	}
	client, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return Peer{}, false
	}
	return f.addrs(server, client, now)
}

// unixPeer asks the kernel which process connected to the Unix socket.
func unixPeer(c *net.UnixConn) (Peer, bool) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}, false
	}
	var cred *unix.Ucred
	cerr := raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	if cerr != nil || err != nil || cred.Pid <= 0 {
		return Peer{}, false
	}
	return describe(int(cred.Pid), int(cred.Uid)), true
}

// addrs finds the local process whose TCP socket is connected to server
// from client (either may be unset: then any, and exactly one such
// connection must exist). With both set, the kernel finds the socket
// (sock_diag); else /proc/net/tcp{,6} is read. The owning process has a
// /proc/PID/fd link to socket:[inode]: the recent PIDs are searched
// first, then every process within the budget (see peerFinder).
func (f *peerFinder) addrs(server, client netip.AddrPort, now time.Time) (Peer, bool) {
	var uid int
	var inode string
	ok := false
	if server.IsValid() && client.IsValid() {
		uid, inode, ok = diagSocket(client, server)
	}
	if !ok {
		uid, inode, ok = procSocket(server, client)
	}
	if !ok {
		return Peer{}, false
	}
	target := "socket:[" + inode + "]"
	for _, pid := range f.recentPIDs() {
		if hasFD(pid, target) {
			f.seen(pid)
			return describe(pid, uid), true
		}
	}
	if !f.mayScan(now) {
		return Peer{UID: uid, Unchecked: true}, true
	}
	pid := socketOwner(target)
	if pid > 0 {
		f.seen(pid)
	}
	return describe(pid, uid), true
}

// describe returns the peer with pid (0: not visible) and uid, with its
// executable and command line.
func describe(pid, uid int) Peer {
	p := Peer{PID: pid, UID: uid}
	if pid <= 0 {
		return p
	}
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	p.Exe, _ = os.Readlink(filepath.Join(dir, "exe"))
	if b, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if args[0] == p.Exe {
			args[0] = filepath.Base(args[0]) // the path is shown already
		}
		p.Command = oneLine(strings.Join(args, " "), 160)
	}
	return p
}

// diagSocket asks the kernel (NETLINK_SOCK_DIAG, an exact lookup: no
// table is read) for the established TCP socket whose local end is local
// and remote end remote, and returns its owner's uid and its inode.
func diagSocket(local, remote netip.AddrPort) (uid int, inode string, ok bool) {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return 0, "", false
	}
	defer unix.Close(fd)
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 1})
	type try struct {
		family     uint8
		local, rem []byte
	}
	var tries []try
	l, r := local.Addr().Unmap(), remote.Addr().Unmap()
	if l.Is4() && r.Is4() {
		a, b := l.As4(), r.As4()
		tries = append(tries, try{unix.AF_INET, a[:], b[:]})
	}
	a, b := local.Addr().As16(), remote.Addr().As16()
	tries = append(tries, try{unix.AF_INET6, a[:], b[:]})
	for _, t := range tries {
		// struct nlmsghdr, then struct inet_diag_req_v2.
		req := make([]byte, unix.NLMSG_HDRLEN+56)
		binary.NativeEndian.PutUint32(req[0:], uint32(len(req)))
		binary.NativeEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
		binary.NativeEndian.PutUint16(req[6:], unix.NLM_F_REQUEST)
		binary.NativeEndian.PutUint32(req[8:], 1)
		d := req[unix.NLMSG_HDRLEN:]
		d[0], d[1] = t.family, unix.IPPROTO_TCP
		binary.NativeEndian.PutUint32(d[4:], 1<<1) // TCP_ESTABLISHED
		id := d[8:]                                // struct inet_diag_sockid
		binary.BigEndian.PutUint16(id[0:], local.Port())
		binary.BigEndian.PutUint16(id[2:], remote.Port())
		copy(id[4:20], t.local)
		copy(id[20:36], t.rem)
		binary.NativeEndian.PutUint32(id[40:], ^uint32(0)) // INET_DIAG_NOCOOKIE
		binary.NativeEndian.PutUint32(id[44:], ^uint32(0))
		if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
			return 0, "", false
		}
		buf := make([]byte, 1024)
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil || n < unix.NLMSG_HDRLEN {
			return 0, "", false
		}
		if binary.NativeEndian.Uint16(buf[4:]) != unix.SOCK_DIAG_BY_FAMILY {
			continue // NLMSG_ERROR: no such socket in this family
		}
		// struct inet_diag_msg: 4 bytes, the sockid (48), expires, rqueue,
		// wqueue, uid, inode.
		m := buf[unix.NLMSG_HDRLEN:n]
		if len(m) < 72 {
			return 0, "", false
		}
		return int(binary.NativeEndian.Uint32(m[64:])), strconv.FormatUint(uint64(binary.NativeEndian.Uint32(m[68:])), 10), true
	}
	return 0, "", false
}

// procSocket finds in /proc/net/tcp{,6} the established socket connected
// to server from client (either may be unset: then any; exactly one must
// match) and returns its owner's uid and its inode.
func procSocket(server, client netip.AddrPort) (uid int, inode string, ok bool) {
	type sock struct {
		uid   int
		inode string
	}
	var found []sock
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		file, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(file)
		sc.Scan() // the header
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 10 || fs[3] != "01" { // ESTABLISHED
				continue
			}
			local, lok := procAddr(fs[1])
			remote, rok := procAddr(fs[2])
			if !lok || !rok {
				continue
			}
			// The client's socket: its local end is the client, its
			// remote end the server.
			if server.IsValid() && !sameAddrPort(remote, server) || client.IsValid() && !sameAddrPort(local, client) {
				continue
			}
			uid, _ := strconv.Atoi(fs[7])
			found = append(found, sock{uid, fs[9]})
		}
		file.Close()
	}
	if len(found) != 1 {
		return 0, "", false
	}
	return found[0].uid, found[0].inode, true
}

// sameAddrPort compares addresses, an IPv4-mapped IPv6 one equal to its
// IPv4 form.
func sameAddrPort(a, b netip.AddrPort) bool {
	return a.Port() == b.Port() && a.Addr().Unmap() == b.Addr().Unmap()
}

// procAddr parses /proc/net/tcp's "0100007F:1F90": the address as the
// kernel's 32-bit words in host (little-endian) order, the port in hex.
func procAddr(s string) (netip.AddrPort, bool) {
	h, p, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, false
	}
	raw, err := hex.DecodeString(h)
	if err != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, false
	}
	for i := 0; i < len(raw); i += 4 {
		raw[i], raw[i+1], raw[i+2], raw[i+3] = raw[i+3], raw[i+2], raw[i+1], raw[i]
	}
	port, err := strconv.ParseUint(p, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	addr, _ := netip.AddrFromSlice(raw)
	return netip.AddrPortFrom(addr, uint16(port)), true
}

// hasFD reports whether process pid has a descriptor linked to target
// (socket:[inode]).
func hasFD(pid int, target string) bool {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "fd")
	fds, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && l == target {
			return true
		}
	}
	return false
}

// socketOwner returns the process with a descriptor linked to target
// (socket:[inode]), or 0 when none visible has.
func socketOwner(target string) int {
	procs, _ := os.ReadDir("/proc")
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		if hasFD(pid, target) {
			return pid
		}
	}
	return 0
}

func oneLine(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
