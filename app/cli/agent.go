package cli

import (
	"fmt"
	"net/url"
	"strings"
	"text/tabwriter"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

func splitList[T ~string](s string) []T {
	if s == "" {
		return nil
	}
	var out []T
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, T(p))
		}
	}
	return out
}

func (c *cmd) agent(args []string) error {
	if len(args) == 0 {
		return usage("agent needs a subcommand: add, list, approve, deny, revoke, rotate, pause, resume, review")
	}
	sub, args := args[0], args[1:]
	fs := newFlags("agent " + sub)
	jsonOut := fs.Bool("json", false, "print JSON")
	switch sub {
	case "add":
		fields := fs.String("fields", "", "writable fields, comma-separated (default learnings,preferences,conventions,decisions)")
		read := fs.String("read", "", "readable partitions, comma-separated (default public,internal)")
		product := fs.String("product", "", "the product the agent works on")
		group := fs.String("group", "", "the agent's group")
		mayConfirm := fs.Bool("may-confirm", false, "let the agent's \"the user confirmed\" count as your confirmation (semantic memory, possible secrets)")
		pos, err := parse(fs, args, 1, 1, "one agent NAME")
		if err != nil {
			return err
		}
		spec := app.AgentSpec{Name: pos[0], Fields: splitList[vault.Field](*fields), Read: splitList[vault.Partition](*read), Product: *product, Group: *group, MayConfirm: *mayConfirm}
		var r app.AgentResponse
		err = c.orForward(func() error {
			r = c.svc.AddAgent(c.ctx, operator, spec)
			return nil
		}, func() error {
			return c.forwardBody("POST", "/v1/admin/agents", spec, &r)
		})
		if err != nil {
			return err
		}
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r)
		}
		fmt.Fprintf(c.out, "added agent %s (fields %s; reads %s; may confirm: %s)\n", r.Agent.Name, joinList(r.Agent.Fields), joinList(r.Agent.Read), yesNo(r.Agent.MayConfirm))
		fmt.Fprintln(c.out, "its token, shown only now (give it to the agent as ENGRAM_TOKEN):")
		return printLine(c.out, r.Token)
	case "list":
		if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
			return err
		}
		var r app.AgentsResponse
		err := c.orForward(func() error {
			r = c.svc.Agents(c.ctx, operator)
			return nil
		}, func() error { return c.forward("GET", "/v1/admin/agents", &r) })
		if err != nil {
			return err
		}
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r)
		}
		tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSTATUS\tFIELDS\tREADS\tMAY CONFIRM\tPRODUCT\tCREATED")
		for _, a := range r.Agents {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.Name, app.StatusText(a), joinList(a.Fields), joinList(a.Read), yesNo(a.MayConfirm), a.Product, stamp(a.Created))
		}
		return tw.Flush()
	case "approve", "deny":
		pos, err := parse(fs, args, 1, 1, "one agent NAME")
		if err != nil {
			return err
		}
		return c.decidePairing(pos[0], sub == "approve")
	case "review":
		return c.agentReview(args)
	case "revoke", "rotate", "pause", "resume":
		pos, err := parse(fs, args, 1, 1, "one agent NAME")
		if err != nil {
			return err
		}
		var r app.AgentResponse
		local := false
		err = c.orForward(func() error {
			local = true
			switch sub {
			case "rotate":
				r = c.svc.RotateToken(c.ctx, operator, pos[0])
			default:
				status := map[string]vault.AgentStatus{"revoke": vault.AgentRevoked, "pause": vault.AgentPaused, "resume": vault.AgentActive}[sub]
				r = c.svc.SetAgentStatus(c.ctx, operator, pos[0], status)
			}
			return nil
		}, func() error {
			return c.forward("POST", "/v1/admin/agents/"+url.PathEscape(pos[0])+"/"+sub, &r)
		})
		if err != nil {
			return err
		}
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if sub == "rotate" {
			fmt.Fprintf(c.out, "new token for %s, shown only now; the old one no longer works:\n", pos[0])
			return printLine(c.out, r.Token)
		}
		if err := printf(c.out, "agent %s is now %s\n", pos[0], r.Agent.Status); err != nil {
			return err
		}
		if sub == "revoke" {
			c.revokeHint(pos[0], local)
		}
		return nil
	}
	return usage("unknown agent subcommand %q", sub)
}

func joinList[T ~string](xs []T) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = string(x)
	}
	return strings.Join(s, ",")
}
