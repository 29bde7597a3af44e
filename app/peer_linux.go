package app

import (
	"bufio"
	"encoding/hex"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// lookupPeer finds the local process whose TCP socket is connected to
// server from client (either may be unset: then any). The kernel lists
// sockets in /proc/net/tcp{,6} with their inode; the owning process has a
// /proc/PID/fd link to socket:[inode]. Without a client address, exactly
// one connection to server must exist.
func lookupPeer(server, client netip.AddrPort) (Peer, bool) {
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
	var peers []Peer
	for _, s := range found {
		pid := socketOwner(s.inode)
		p := Peer{PID: pid, UID: s.uid}
		if pid > 0 {
			p.Exe, _ = os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe"))
			if b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline")); err == nil {
				args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
				if args[0] == p.Exe {
					args[0] = filepath.Base(args[0]) // the path is shown already
				}
				p.Command = oneLine(strings.Join(args, " "), 160)
			}
		}
		peers = append(peers, p)
	}
	if len(peers) != 1 {
		return Peer{}, false
	}
	return peers[0], true
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

// socketOwner returns the process with a descriptor for the socket with
// inode, or 0 when none visible has.
func socketOwner(inode string) int {
	target := "socket:[" + inode + "]"
	procs, _ := os.ReadDir("/proc")
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		dir := filepath.Join("/proc", d.Name(), "fd")
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && l == target {
				return pid
			}
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
