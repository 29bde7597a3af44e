//go:build linux

package app

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProcAddr(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0100007F:1D2A", "127.0.0.1:7466"},
		{"00000000000000000000000001000000:1F90", "[::1]:8080"},
		{"0000000000000000FFFF00000100007F:0050", "[::ffff:127.0.0.1]:80"},
	} {
		got, ok := procAddr(tc.in)
		if !ok || got != netip.MustParseAddrPort(tc.want) {
			t.Errorf("procAddr(%q) = %v, %v, want %s", tc.in, got, ok, tc.want)
		}
	}
	if _, ok := procAddr("zz:1"); ok {
		t.Error("procAddr accepted garbage")
	}
}

// loopbackPair returns both ends of a loopback TCP connection.
func loopbackPair(t testing.TB) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// inodeOf is the socket inode of c, from this process's fd link.
func inodeOf(t testing.TB, c net.Conn) string {
	t.Helper()
	f, err := c.(*net.TCPConn).File()
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")
}

// TestDiagSocket: the kernel's exact lookup and the /proc/net/tcp scan
// find the same socket: the client's, owned by this user.
func TestDiagSocket(t *testing.T) {
	client, _ := loopbackPair(t)
	local := netip.MustParseAddrPort(client.LocalAddr().String())
	remote := netip.MustParseAddrPort(client.RemoteAddr().String())
	want := inodeOf(t, client)
	uid, inode, ok := diagSocket(local, remote)
	if !ok || uid != os.Getuid() || inode != want {
		t.Errorf("diagSocket = %d, %s, %v; want %d, %s", uid, inode, ok, os.Getuid(), want)
	}
	uid, inode, ok = procSocket(remote, local)
	if !ok || uid != os.Getuid() || inode != want {
		t.Errorf("procSocket = %d, %s, %v; want %d, %s", uid, inode, ok, os.Getuid(), want)
	}
	if _, _, ok := diagSocket(local, netip.AddrPortFrom(remote.Addr(), remote.Port()+1)); ok {
		t.Error("diagSocket found a connection that does not exist")
	}
}

// TestPeerFinder: the process behind a connection is this one, found by
// a full search the first time and among the recent ones after; with
// the search budget spent, a process not seen lately is named by its
// user only.
func TestPeerFinder(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var f peerFinder
	_, server := loopbackPair(t)
	p, ok := f.conn(server, now)
	if !ok || p.PID != os.Getpid() || p.UID != os.Getuid() || p.key() != fmt.Sprintf("pid:%d", os.Getpid()) {
		t.Fatalf("conn = %+v, %v; want this process", p, ok)
	}
	for f.mayScan(now) {
	}
	_, server2 := loopbackPair(t)
	if p, ok := f.conn(server2, now); !ok || p.PID != os.Getpid() {
		t.Errorf("with the budget spent, a recent process = %+v, %v; want it found", p, ok)
	}
	f.recent = nil
	_, server3 := loopbackPair(t)
	p, ok = f.conn(server3, now)
	if !ok || p.PID != 0 || !p.Unchecked || p.UID != os.Getuid() || p.key() != fmt.Sprintf("uid:%d", os.Getuid()) {
		t.Errorf("with the budget spent, a process not seen lately = %+v, %v; want unchecked, user %d", p, ok, os.Getuid())
	}
	if p, ok := f.conn(server3, now.Add(time.Second)); !ok || p.PID != os.Getpid() {
		t.Errorf("a second later (budget refilled) = %+v, %v; want this process", p, ok)
	}
}

// TestUnixPeer: SO_PEERCRED names the process on the Unix socket.
func TestUnixPeer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := net.Dial("unix", path); err == nil {
			defer c.Close()
			c.Read(make([]byte, 1))
		}
	}()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var f peerFinder
	if p, ok := f.conn(c, time.Now()); !ok || p.PID != os.Getpid() || p.UID != os.Getuid() || p.Exe == "" {
		t.Errorf("conn(unix) = %+v, %v; want this process", p, ok)
	}
}

func TestPeerKeys(t *testing.T) {
	for _, tc := range []struct {
		p    Peer
		want string
	}{
		{Peer{PID: 42, UID: 1000, Exe: "/usr/bin/x", Command: "x --flag"}, "pid:42"},
		{Peer{PID: 42, UID: 1000, Exe: "/usr/bin/x"}, "pid:42"},
		{Peer{UID: 1001}, "uid:1001"},
		{Peer{UID: 1000, Unchecked: true}, "uid:1000"},
		{Peer{UID: -1}, ""},
	} {
		if got := tc.p.key(); got != tc.want {
			t.Errorf("%+v.key() = %q, want %q", tc.p, got, tc.want)
		}
		// A pending agent keeps String in its Note; the key comes back from it.
		if got := keyOfString(tc.p.String()); got != tc.want {
			t.Errorf("keyOfString(%q) = %q, want %q", tc.p.String(), got, tc.want)
		}
	}
}

// BenchmarkPeerLookup is the cost of naming the process behind a new
// connection: lookupPeer before (every /proc/net/tcp line and every
// process's fds), and peerFinder with the process among the recent ones.
func BenchmarkPeerLookup(b *testing.B) {
	client, server := loopbackPair(b)
	srv := netip.MustParseAddrPort(server.LocalAddr().String())
	cl := netip.MustParseAddrPort(client.LocalAddr().String())
	b.Run("full-search", func(b *testing.B) {
		for b.Loop() {
			if _, _, ok := procSocket(srv, cl); !ok {
				b.Fatal("no socket")
			}
			if socketOwner("socket:["+inodeOf(b, client)+"]") != os.Getpid() {
				b.Fatal("no owner")
			}
		}
	})
	b.Run("finder-recent", func(b *testing.B) {
		var f peerFinder
		f.seen(os.Getpid())
		for b.Loop() {
			if p, ok := f.addrs(srv, cl, time.Now()); !ok || p.PID != os.Getpid() {
				b.Fatal("not found")
			}
		}
	})
}
