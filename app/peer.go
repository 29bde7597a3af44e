package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Peer is the local process at the other end of an agent's connection,
// as far as the operating system tells: on Linux, the process that owns
// the loopback TCP socket (found through /proc), or the one SO_PEERCRED
// names on the Unix socket. It is what the pairing pop-up shows beside
// the name the agent declared for itself, and what the limits on
// unauthenticated requests (pairing, failed authentications) count by.
type Peer struct {
	PID     int    // 0 when the process is not visible (another user's) or not looked for
	UID     int    // -1 when unknown
	Exe     string // the executable's path
	Command string // its command line, cut to a line
	// Unchecked: Engram did not look for the process, because too many
	// new processes made requests at once (see peerFinder); UID is known.
	Unchecked bool
}

// String says who the peer is in one line.
func (p Peer) String() string {
	switch {
	case p.PID > 0 && p.Command != "":
		return fmt.Sprintf("process %d, %s (%s)", p.PID, p.Exe, p.Command)
	case p.PID > 0:
		return fmt.Sprintf("process %d, %s", p.PID, p.Exe)
	case p.UID >= 0 && p.Unchecked:
		return fmt.Sprintf("a process of user id %d that Engram did not look for: too many new processes asked at once", p.UID)
	case p.UID >= 0:
		return fmt.Sprintf("a process of user id %d that Engram may not inspect", p.UID)
	}
	return ""
}

// label is the peer in an audit entry: without the command line, which
// the process chose itself (an audit reason holds no caller's text).
func (p Peer) label() string {
	switch {
	case p.PID > 0:
		return fmt.Sprintf("process %d, %s", p.PID, p.Exe)
	case p.UID >= 0:
		return fmt.Sprintf("a process of user id %d", p.UID)
	}
	return "a process the OS did not name"
}

// key names the peer for per-process limits: "pid:N" for a process the
// OS named, "uid:N" for one of user N that Engram did not or could not
// look for (all of them one key), "" for the rest (the OS did not tell).
func (p Peer) key() string {
	switch {
	case p.PID > 0:
		return fmt.Sprintf("pid:%d", p.PID)
	case p.UID >= 0:
		return fmt.Sprintf("uid:%d", p.UID)
	}
	return ""
}

// keyOfString recovers key from String's text (kept in a pending
// agent's Note), "" when it names no process or user.
func keyOfString(s string) string {
	var n int
	if c, _ := fmt.Sscanf(s, "process %d,", &n); c == 1 && n > 0 {
		return fmt.Sprintf("pid:%d", n)
	}
	if c, _ := fmt.Sscanf(s, "a process of user id %d ", &n); c == 1 && n >= 0 {
		return fmt.Sprintf("uid:%d", n)
	}
	return ""
}

type peerKey struct{}

// WithPeer returns ctx carrying the remote address of the connection a
// request came on (http.Request.RemoteAddr), so that the service can say
// which process asks. Without it (and without WithConn), it looks for the
// one connection to the server's address (http.LocalAddrContextKey).
func WithPeer(ctx context.Context, remoteAddr string) context.Context {
	return context.WithValue(ctx, peerKey{}, remoteAddr)
}

type connKey struct{}

// connPeer is the process behind one connection, looked up once.
type connPeer struct {
	c    net.Conn
	once sync.Once
	p    Peer
	ok   bool
}

// WithConn returns ctx carrying the connection c, for
// http.Server.ConnContext: the process behind a connection is then looked
// up at most once, when a request on it first needs it (an authenticated
// request never does).
func WithConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, &connPeer{c: c})
}

// Peer returns the process that sent the request ctx belongs to (see
// WithConn, WithPeer), or false when the OS does not tell.
func (s *Service) Peer(ctx context.Context) (Peer, bool) {
	return s.reg.Peer(ctx)
}

// Peer is Service.Peer's work.
func (s *registrar) Peer(ctx context.Context) (Peer, bool) {
	if cp, ok := ctx.Value(connKey{}).(*connPeer); ok {
		cp.once.Do(func() { cp.p, cp.ok = s.peers.conn(cp.c, s.now()) })
		return cp.p, cp.ok
	}
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
	return s.peers.addrs(server, client, s.now())
}

// ProcessKey names the process that sent the request ctx belongs to, for
// limits counted per process: "pid:N" when the OS names it, "uid:N" for
// a process of user N that Engram did not look for or may not inspect
// (all such processes share it), and "" when the OS does not tell (off
// Linux, or without a connection): callers then count every such request
// together.
func (s *Service) ProcessKey(ctx context.Context) string {
	return s.reg.ProcessKey(ctx)
}

// ProcessKey is Service.ProcessKey's work.
func (s *registrar) ProcessKey(ctx context.Context) string {
	p, ok := s.Peer(ctx)
	if !ok {
		return ""
	}
	return p.key()
}

// Finding the process behind a TCP connection means searching every
// process's open files for its socket: 5 to 20 ms with a hundred
// processes. peerFinder first searches the processes it found lately
// (those that ask again), and searches them all at most peerScanRate
// times a second (a burst of peerScanBurst): a flood of requests from new
// processes then costs a bounded share of a core, and the askers beyond
// the budget are known by their user id only (Peer.Unchecked).
const (
	peerScanRate   = 5
	peerScanBurst  = 10
	peerRecentPIDs = 16
)

// peerFinder finds the process behind a connection; see above. Its
// methods are safe for concurrent use.
type peerFinder struct {
	mu     sync.Mutex
	recent []int // PIDs found lately, the latest first
	scans  float64
	last   time.Time
}

// seen puts pid first among the recent PIDs.
func (f *peerFinder) seen(pid int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.recent = slices.DeleteFunc(f.recent, func(p int) bool { return p == pid })
	f.recent = slices.Insert(f.recent, 0, pid)
	if len(f.recent) > peerRecentPIDs {
		f.recent = f.recent[:peerRecentPIDs]
	}
}

// recentPIDs returns a copy of the recent PIDs.
func (f *peerFinder) recentPIDs() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.recent)
}

// mayScan takes one full search from the budget.
func (f *peerFinder) mayScan(now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.last.IsZero() {
		f.scans, f.last = peerScanBurst, now
	}
	if d := now.Sub(f.last).Seconds(); d > 0 {
		f.scans = min(peerScanBurst, f.scans+d*peerScanRate)
		f.last = now
	}
	if f.scans < 1 {
		return false
	}
	f.scans--
	return true
}
