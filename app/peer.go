package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
)

// Peer is the local process at the other end of an agent's connection,
// as far as the operating system tells: on Linux, the process that owns
// the loopback TCP socket (found through /proc). It is what the pairing
// pop-up shows beside the name the agent declared for itself.
type Peer struct {
	PID     int    // 0 when the process is not visible (another user's)
	UID     int    // -1 when unknown
	Exe     string // the executable's path
	Command string // its command line, cut to a line
}

// String says who the peer is in one line.
func (p Peer) String() string {
	switch {
	case p.PID > 0 && p.Command != "":
		return fmt.Sprintf("process %d, %s (%s)", p.PID, p.Exe, p.Command)
	case p.PID > 0:
		return fmt.Sprintf("process %d, %s", p.PID, p.Exe)
	case p.UID >= 0:
		return fmt.Sprintf("a process of user id %d that Engram may not inspect", p.UID)
	}
	return ""
}

type peerKey struct{}

// WithPeer returns ctx carrying the remote address of the connection a
// request came on (http.Request.RemoteAddr), so that RequestPairing can
// say which process asks. Without it, RequestPairing looks for the one
// connection to the server's address (http.LocalAddrContextKey).
func WithPeer(ctx context.Context, remoteAddr string) context.Context {
	return context.WithValue(ctx, peerKey{}, remoteAddr)
}

// peerOf finds the process that made the request ctx belongs to, or
// returns false when the OS does not tell.
func peerOf(ctx context.Context) (Peer, bool) {
	var server, client netip.AddrPort
	if a, ok := ctx.Value(http.LocalAddrContextKey).(net.Addr); ok {
		if ap, err := netip.ParseAddrPort(a.String()); err == nil {
			server = ap
		}
	}
	if s, ok := ctx.Value(peerKey{}).(string); ok {
		if ap, err := netip.ParseAddrPort(s); err == nil {
			client = ap
		}
	}
	if !server.IsValid() && !client.IsValid() {
		return Peer{}, false
	}
	return lookupPeer(server, client)
}
