package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/engram-app/engram/app"
)

func (c *cmd) quarantine(args []string) error {
	if len(args) == 0 {
		return usage("quarantine needs a subcommand: list, show, approve, reject, discard")
	}
	sub, args := args[0], args[1:]
	fs := newFlags("quarantine " + sub)
	jsonOut := fs.Bool("json", false, "print JSON")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	edit := fs.String("edit", "", "approve this corrected text instead")
	keep := fs.Bool("keep-other-half", false, "reject: keep the stored half of a split order (by default it is deleted with the item)")
	nargs := 1
	if sub == "list" {
		nargs = 0
	}
	pos, err := parse(fs, args, nargs, nargs, map[int]string{0: "no arguments", 1: "one queue ID"}[nargs])
	if err != nil {
		return err
	}
	if err := c.open(); err != nil {
		return err
	}
	if err := c.unlock(unlockIfEasy, *passFile, true); err != nil {
		return err
	}
	switch sub {
	case "list":
		if n, r := c.svc.PurgeExpiredHostile(c.ctx, operator, c.o.Now()); r.OK() && n > 0 {
			fmt.Fprintf(c.o.Stderr, "engram: removed %d hostile copies past their 30-day retention\n", n)
		}
		r := c.svc.Quarantine(c.ctx, operator)
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r)
		}
		tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tSTATE\tTHREAT\tAGENT\tPROPOSAL\tREASON\tCONTENT")
		for _, it := range r.Items {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", it.ID, it.State, it.Threat, it.Agent, it.Proposal, it.Reason, preview(it.Memory.Content, 40))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if r.Hidden > 0 {
			fmt.Fprintf(c.o.Stderr, "engram: %d sealed items not shown: the vault is locked\n", r.Hidden)
		}
		return nil
	case "show":
		r := c.svc.QuarantineItem(c.ctx, operator, pos[0])
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r.Item)
		}
		return printItem(c, r.Item)
	case "approve":
		var e *string
		if *edit != "" {
			e = edit
		}
		r := c.svc.Approve(c.ctx, operator, pos[0], e)
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if r.Message != "" {
			return printLine(c.out, "approved: "+r.Message) // a memory held for review, kept
		}
		return printf(c.out, "approved: stored as memory %s\n", r.Memory.ID)
	case "reject":
		r := c.svc.RejectItem(c.ctx, operator, pos[0], app.RejectOptions{KeepPartner: *keep})
		if err := fromResponse(r); err != nil {
			return err
		}
		if r.Message != "" {
			return printf(c.out, "rejected %s: %s\n", pos[0], r.Message) // a memory held for review, deleted
		}
		return printf(c.out, "rejected %s: not stored\n", pos[0])
	case "discard":
		if err := fromResponse(c.svc.Discard(c.ctx, operator, pos[0])); err != nil {
			return err
		}
		return printf(c.out, "discarded %s\n", pos[0])
	}
	return usage("unknown quarantine subcommand %q", sub)
}

func printItem(c *cmd, it *app.QueueItem) error {
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "id:\t%s\n", it.ID)
	fmt.Fprintf(tw, "state:\t%s\n", it.State)
	fmt.Fprintf(tw, "agent / session:\t%s / %s\n", it.Agent, it.Session)
	fmt.Fprintf(tw, "source:\t%s\n", it.Memory.Source.Type)
	fmt.Fprintf(tw, "field / partition:\t%s / %s\n", it.Memory.Field, it.Memory.Partition)
	fmt.Fprintf(tw, "risk:\t%s\n", it.RiskLevel())
	for _, e := range it.Effects() {
		fmt.Fprintf(tw, "  it would:\t%s\n", e)
	}
	fmt.Fprintf(tw, "reason:\t%s\n", it.Reason)
	if p := it.Partner; p != nil {
		held := "not held: " + p.Why
		if p.Held {
			held = "held out of every agent's recall until you decide; reject deletes it too (--keep-other-half keeps it), approve brings it back"
		}
		fmt.Fprintf(tw, "other half:\tstored as memory %s, %s\n", p.ID, held)
	}
	for _, r := range it.Reasons {
		fmt.Fprintf(tw, "  finding:\t%s\n", r)
	}
	fmt.Fprintf(tw, "guardian proposes:\t%s\n", it.Proposal)
	for _, g := range it.Guardian {
		fmt.Fprintf(tw, "  because:\t%s\n", g)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// Quoted, so control characters and markup in hostile text stay inert.
	if err := printf(c.out, "\ncontent (quoted):\n%q\n", it.Memory.Content); err != nil {
		return err
	}
	for _, f := range it.Findings {
		if f.Start >= 0 && f.End > f.Start && f.End <= len(it.Memory.Content) {
			if err := printf(c.out, "  marked (%s): %q\n", strings.ReplaceAll(f.Type, "_", " "), it.Memory.Content[f.Start:f.End]); err != nil {
				return err
			}
		}
	}
	if p := it.Partner; p != nil {
		if err := printf(c.out, "\nthe other half, memory %s (quoted):\n%q\n", p.ID, p.Content); err != nil {
			return err
		}
	}
	if it.Joined == "" {
		return nil
	}
	if err := printf(c.out, "\nwhat the guard read, the two joined (quoted):\n%q\n", it.Joined); err != nil {
		return err
	}
	for _, f := range it.JoinedFindings {
		if f.Start >= 0 && f.End > f.Start && f.End <= len(it.Joined) {
			if err := printf(c.out, "  marked (%s): %q\n", strings.ReplaceAll(f.Type, "_", " "), it.Joined[f.Start:f.End]); err != nil {
				return err
			}
		}
	}
	return nil
}
