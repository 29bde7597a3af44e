package agents

import (
	"cmp"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/engram-app/engram/vault"
)

// Why an authentication failed, as the summary counts it.
const (
	FailMalformed = "missing or malformed token"
	FailUnknown   = "unknown or revoked token"
	FailPairPoll  = "pairing poll with an unknown name or secret"
)

// AuthFailPeriod is how long failed authentications are counted in
// memory before they are written to the audit log as one summary.
//
// A request with a wrong token needs no token to send, so it must not
// cost a write: the log gets one agent:auth_failed entry per period in
// which there were failures (with their count in Count, and by reason and
// by process in Reason), and one at Close for the failures since the
// last. An unauthenticated caller thus adds at most one entry a minute.
// A crash loses the count of the current period.
const AuthFailPeriod = time.Minute

// maxFailPeers is how many processes a summary names; the others are
// counted together.
const maxFailPeers = 8

// AuthFailures counts failed authentications until they are written (see
// AuthFailPeriod), as one agent:auth_failed audit entry. Its goroutine is
// ended by Close, which writes what was counted since the last entry.
type AuthFailures struct {
	audit func(vault.AuditEntry) error
	now   func() time.Time
	log   *slog.Logger

	mu       sync.Mutex
	total    int
	first    time.Time
	byReason map[string]int
	byPeer   map[string]int // Peer.label, at most maxFailPeers
	others   int            // failures from processes beyond maxFailPeers
	// scheduled: a flush waits; closed: Close ran, nothing more is written.
	scheduled, closed bool
	stop              chan struct{} // closed by Close: a waiting flush runs at once
	wg                sync.WaitGroup
}

// NewAuthFailures returns a counter that writes its summaries with audit.
func NewAuthFailures(audit func(vault.AuditEntry) error, now func() time.Time, log *slog.Logger) *AuthFailures {
	return &AuthFailures{audit: audit, now: now, log: log}
}

// Note counts one failure (why: one of the Fail reasons; peer: the
// process, as Peer's audit label) and schedules the summary.
func (f *AuthFailures) Note(why, peer string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if f.total == 0 {
		f.first = f.now().UTC()
		f.byReason, f.byPeer = map[string]int{}, map[string]int{}
	}
	f.total++
	f.byReason[why]++
	if _, ok := f.byPeer[peer]; ok || len(f.byPeer) < maxFailPeers {
		f.byPeer[peer]++
	} else {
		f.others++
	}
	if f.scheduled {
		return
	}
	f.scheduled = true
	if f.stop == nil {
		f.stop = make(chan struct{})
	}
	stop := f.stop
	f.wg.Go(func() {
		t := time.NewTimer(AuthFailPeriod)
		defer t.Stop()
		select {
		case <-t.C:
		case <-stop:
		}
		f.flush()
	})
}

// flush writes the counted failures as one audit entry.
func (f *AuthFailures) flush() {
	f.mu.Lock()
	total, first, byReason, byPeer, others := f.total, f.first, f.byReason, f.byPeer, f.others
	f.total, f.byReason, f.byPeer, f.others, f.scheduled = 0, nil, nil, 0, false
	f.mu.Unlock()
	if total == 0 {
		return
	}
	e := vault.AuditEntry{Action: vault.ActionAuthFail, Agent: "unknown", Result: vault.ResultDenied, Count: total,
		Reason: authFailSummary(total, first, byReason, byPeer, others)}
	if err := f.audit(e); err != nil {
		f.log.Error("audit failed authentications", "err", err)
	}
}

// authFailSummary says how many authentications failed since first, why,
// and from which processes.
func authFailSummary(total int, first time.Time, byReason, byPeer map[string]int, others int) string {
	var why, from []string
	for _, k := range byCount(byReason) {
		why = append(why, fmt.Sprintf("%d %s", byReason[k], k))
	}
	for _, k := range byCount(byPeer) {
		from = append(from, fmt.Sprintf("%s (%d)", k, byPeer[k]))
	}
	if others > 0 {
		from = append(from, fmt.Sprintf("other processes (%d)", others))
	}
	return fmt.Sprintf("%d failed authentications since %s: %s; from %s",
		total, first.Format(time.RFC3339), strings.Join(why, ", "), strings.Join(from, ", "))
}

// byCount returns m's keys, the largest count first, then by name.
func byCount(m map[string]int) []string {
	return slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(m[b], m[a]), strings.Compare(a, b))
	})
}

// Close writes the failures counted since the last summary and
// schedules no more.
func (f *AuthFailures) Close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	if f.stop != nil {
		close(f.stop)
	}
	f.mu.Unlock()
	f.wg.Wait()
	f.flush()
}
