package cli

import (
	"fmt"
	"time"

	"github.com/engram-app/engram/app"
)

// sweep applies decay, expiry, archive, purge and compaction as of --now.
func (c *cmd) sweep(args []string) error {
	fs := newFlags("sweep")
	nowFlag := fs.String("now", "", "apply the rules as of this time (RFC 3339; default now)")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	jsonOut := fs.Bool("json", false, "print JSON")
	if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
		return err
	}
	now := c.o.Now()
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return usage("sweep --now takes an RFC 3339 time such as 2027-01-31T09:00:00Z")
		}
		now = t
	}
	if err := c.openAndUnlock(unlockIfEasy, *passFile); err != nil {
		return err
	}
	r := c.svc.Sweep(c.ctx, operator, now, c.settings.DecayPolicy(), app.DefaultAuditRetention)
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	if *jsonOut {
		return printJSON(c.out, r)
	}
	for _, a := range r.Actions {
		fmt.Fprintf(c.out, "%-8s %s (%s)\n", a.Action, a.ID, a.Reason)
	}
	fmt.Fprintf(c.out, "sweep as of %s: archived %d, purged %d", now.UTC().Format(time.RFC3339), r.Archived, r.Purged)
	if r.HostilePurged > 0 {
		fmt.Fprintf(c.out, ", %d hostile copies removed", r.HostilePurged)
	}
	if r.AuditPruned > 0 {
		fmt.Fprintf(c.out, ", %d audit entries pruned", r.AuditPruned)
	}
	if r.Compacted {
		fmt.Fprintf(c.out, "; file compacted %d -> %d bytes", r.BytesBefore, r.BytesAfter)
	}
	fmt.Fprintln(c.out)
	if r.L3Proposed > 0 {
		fmt.Fprintf(c.out, "%d L3 access records are past their retention: they stay until you approve their removal with engram audit prune --l3\n", r.L3Proposed)
	}
	if r.SkippedLocked > 0 {
		fmt.Fprintf(c.o.Stderr, "engram: %d sensitive memories were not swept: the vault is locked\n", r.SkippedLocked)
	}
	return nil
}
