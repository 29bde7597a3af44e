package cli

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/engram-app/engram/app"
)

// agentReview is `engram agent review NAME [--session ID]`: when the user
// finds an agent (one of its sessions, an import run) unreliable, its live
// memories, those merged from them and those confirmed only by it go into
// the quarantine for the user's review (app.Service.Reevaluate). It lists
// them first and asks (default no); --yes holds them without asking,
// --dry-run only lists them. In a running Engram it runs there, asking on
// the user's terminal.
func (c *cmd) agentReview(args []string) error {
	fs := newFlags("agent review")
	session := fs.String("session", "", "only what it wrote in this session (an import run: its import-… session, named in the audit log)")
	dry := fs.Bool("dry-run", false, "list what would be held for review; change nothing")
	yes := fs.Bool("yes", false, "hold them for review without asking")
	jsonOut := fs.Bool("json", false, "print JSON")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file (sealed memories are examined only while the vault is unlocked)")
	pos, err := parse(fs, args, 1, 1, "one agent NAME (or an importer, import:FORMAT)")
	if err != nil {
		return err
	}
	if err := c.open(); err != nil {
		return err
	}
	if err := c.unlock(unlockIfEasy, *passFile, true); err != nil {
		return err
	}
	in := app.ReevaluateInput{Agent: pos[0], Session: *session, DryRun: true}
	r := c.svc.Reevaluate(c.ctx, operator, in)
	if r.Status == app.StatusInvalid {
		return usage("agent review: %s", strings.TrimPrefix(r.Message, "invalid: "))
	}
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	if *jsonOut && (*dry || len(r.Selected) == 0) {
		return printJSON(c.out, r)
	}
	if !*jsonOut {
		if err := printReevaluation(c, r); err != nil {
			return err
		}
	}
	switch {
	case len(r.Selected) == 0:
		return nil
	case *dry:
		return printLine(c.out, "dry run: nothing was moved")
	case !*yes:
		q := fmt.Sprintf("Hold %s for your review? They leave every agent's reach until you approve (keep) or reject (delete) each in the quarantine.", count(len(r.Selected), "memory", "memories"))
		if err := c.askYes(q); err != nil {
			return err
		}
	}
	in.DryRun = false
	r = c.svc.Reevaluate(c.ctx, operator, in)
	if *jsonOut {
		if err := printJSON(c.out, r); err != nil {
			return err
		}
		return fromResponse(r.Response)
	}
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	if err := printLine(c.out, r.Message); err != nil {
		return err
	}
	return printLine(c.out, "review them with 'engram quarantine list'")
}

// printReevaluation lists what a review selected (text only outside the
// sensitive partition), what it left alone and why, then its summary.
func printReevaluation(c *cmd, r app.ReevaluateResponse) error {
	if len(r.Selected) > 0 {
		tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tPARTITION\tWHY\tCONTENT")
		for _, m := range r.Selected {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, m.Partition, m.Why, preview(m.Text, 40))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	for _, m := range r.LeftAlone {
		fmt.Fprintf(c.out, "left alone: %s (%s)\n", m.ID, m.Why)
	}
	for _, m := range r.Displaced {
		fmt.Fprintf(c.out, "in the archive: %s (%s)\n", m.ID, m.Why)
	}
	return printLine(c.out, r.Message)
}

// askYes asks a yes-or-no question on the terminal, no by default;
// without a terminal it fails and says to pass --yes.
func (c *cmd) askYes(question string) error {
	if c.o.ReadLine == nil {
		return usage("no terminal to confirm on: pass --yes to hold them, or --dry-run to only list them")
	}
	line, err := c.o.ReadLine(question + " [y/N] ")
	if errors.Is(err, errNoTerminal) {
		return usage("no terminal to confirm on: pass --yes to hold them, or --dry-run to only list them")
	}
	if err != nil {
		return err
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return nil
	}
	return fail(exitFailed, "not confirmed; nothing was moved")
}

// revokeHint says, after an agent is revoked, how many live memories rest
// on it and how to hold them for review: revoking stops the agent, it does
// not judge what it wrote. local says whether the vault is open here;
// otherwise the running Engram is asked.
func (c *cmd) revokeHint(name string, local bool) {
	var r app.ReevaluateResponse
	in := app.ReevaluateInput{Agent: name, DryRun: true}
	if local {
		r = c.svc.Reevaluate(c.ctx, operator, in)
	} else if err := c.forwardBody("POST", "/v1/admin/reevaluate", in, &r); err != nil {
		return
	}
	if !r.OK() || len(r.Selected) == 0 {
		return
	}
	n := len(r.Selected)
	rest, stay, them := "rest", "stay", "them"
	if n == 1 {
		rest, stay, them = "rests", "stays", "it"
	}
	fmt.Fprintf(c.out, "%s: %s %s on it (%s) and %s live: hold %s for your review with 'engram agent review %s'\n",
		name, count(n, "live memory", "live memories"), rest, r.Reasons(), stay, them, name)
}
