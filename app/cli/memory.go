package cli

import (
	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

func (c *cmd) memory(args []string) error {
	if len(args) == 0 {
		return usage("memory needs a subcommand: add, recall, get, history, list, update, rollback, merge, split, pin, unpin, confirm, refute, question, questions, delete, restore, forget, clear")
	}
	sub, args := args[0], args[1:]
	switch sub {
	case "recall":
		return c.memoryRecall(args)
	case "forget":
		return c.memoryForget(args)
	case "clear":
		return c.memoryClear(args)
	}
	fs := newFlags("memory " + sub)
	jsonOut := fs.Bool("json", false, "print JSON")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	switch sub {
	case "add":
		part := fs.String("partition", "internal", "public, internal or sensitive")
		kind := fs.String("kind", "fact", "fact, preference, event, pattern or knowledge")
		field := fs.String("field", "learnings", "the field to file it under")
		tier := fs.String("tier", "semantic", "episodic or semantic")
		var tags listFlag
		fs.Var(&tags, "tag", "a tag (repeatable)")
		confirm := fs.Bool("confirm", false, "store it as it is although it may hold a secret (a long random string or hash)")
		expires := fs.String("expires", "", "when it expires: an RFC 3339 time, a date (YYYY-MM-DD) or a duration such as 36h, 30d or 2w")
		pos, err := parse(fs, args, 1, 1, "one TEXT argument (quote it)")
		if err != nil {
			return err
		}
		if err := c.openAndUnlock(modeFor(*part), *passFile); err != nil {
			return err
		}
		r := c.svc.Store(c.ctx, operator, app.StoreInput{
			Content: pos[0], Partition: vault.Partition(*part), Kind: vault.Kind(*kind),
			Field: vault.Field(*field), Tier: vault.Tier(*tier), Tags: tags, Confirmed: *confirm, Expires: *expires,
		})
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		c.warn(r.Warnings)
		if *jsonOut {
			return printJSON(c.out, r.Memory)
		}
		return printLine(c.out, r.Memory.ID)

	case "get", "history", "pin", "unpin", "delete", "restore":
		pos, err := parse(fs, args, 1, 1, "one memory ID")
		if err != nil {
			return err
		}
		id := pos[0]
		if err := c.openForMemory(id, *passFile); err != nil {
			return err
		}
		switch sub {
		case "get":
			r := c.svc.Get(c.ctx, operator, id)
			if err := fromResponse(r.Response); err != nil {
				return err
			}
			if *jsonOut {
				return printJSON(c.out, r.Memory)
			}
			return printMemory(c.out, r.Memory)
		case "history":
			r := c.svc.History(c.ctx, operator, id)
			if err := fromResponse(r.Response); err != nil {
				return err
			}
			if *jsonOut {
				return printJSON(c.out, r)
			}
			return printHistory(c.out, r.Memory, r.Versions)
		case "restore":
			r := c.svc.Restore(c.ctx, operator, id)
			if err := fromResponse(r.Response); err != nil {
				return err
			}
			return printf(c.out, "restored %s to %s (version %d)\n", id, r.Memory.Partition, r.Memory.Version)
		case "pin", "unpin":
			r := c.svc.SetPinned(c.ctx, operator, id, sub == "pin")
			if err := fromResponse(r.Response); err != nil {
				return err
			}
			return printf(c.out, "%sned %s (version %d)\n", sub, id, r.Memory.Version)
		default:
			if err := fromResponse(c.svc.Delete(c.ctx, operator, id)); err != nil {
				return err
			}
			return printf(c.out, "deleted %s\n", id)
		}

	case "update":
		confirm := fs.Bool("confirm", false, "store the new text as it is although it may hold a secret (a long random string or hash)")
		expires := fs.String("expires", "", "a new expiry: an RFC 3339 time, a date, a duration such as 30d, or default (the policy's)")
		pos, err := parse(fs, args, 1, 2, "a memory ID and the new TEXT (the TEXT may be left out with --expires)")
		if err != nil {
			return err
		}
		if len(pos) == 1 && *expires == "" {
			return usage("memory update needs the new TEXT, or --expires")
		}
		if err := c.openForMemory(pos[0], *passFile); err != nil {
			return err
		}
		in := app.UpdateInput{Operation: vault.OpUpdate, Confirmed: *confirm, Expires: *expires}
		if len(pos) == 2 {
			in.Content = &pos[1]
		}
		r := c.svc.Update(c.ctx, operator, pos[0], in)
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		c.warn(r.Warnings)
		if *jsonOut {
			return printJSON(c.out, r.Memory)
		}
		return printf(c.out, "updated %s to version %d\n", pos[0], r.Memory.Version)

	case "confirm", "refute":
		// The user's verdict on a memory: confirm restarts its TTL and
		// confidence; refute (found wrong, with the evidence) archives it
		// at the next sweep with the evidence as its note.
		pos, err := parse(fs, args, 1, 2, "a memory ID and, optionally, the EVIDENCE")
		if err != nil {
			return err
		}
		evidence := ""
		if len(pos) == 2 {
			evidence = pos[1]
		}
		if sub == "refute" && evidence == "" {
			return usage("memory refute needs the EVIDENCE that shows it wrong")
		}
		if err := c.openForMemory(pos[0], *passFile); err != nil {
			return err
		}
		verdict := c.svc.Confirm
		if sub == "refute" {
			verdict = c.svc.Refute
		}
		r := verdict(c.ctx, operator, pos[0], evidence)
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r.Memory)
		}
		if sub == "refute" {
			return printf(c.out, "refuted %s: the next sweep archives it with the evidence as its note\n", pos[0])
		}
		return printf(c.out, "confirmed %s: its confidence and time to live start again\n", pos[0])

	case "question":
		// The user's doubt: the memory keeps its place, its confidence is
		// halved, and it waits in memory questions until confirmed or refuted.
		pos, err := parse(fs, args, 2, 2, "a memory ID and the REASON it may be wrong")
		if err != nil {
			return err
		}
		if err := c.openForMemory(pos[0], *passFile); err != nil {
			return err
		}
		r := c.svc.Question(c.ctx, operator, pos[0], pos[1])
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r.Memory)
		}
		return printf(c.out, "questioned %s: it stays, with half its confidence, until you confirm or refute it\n", pos[0])

	case "questions":
		if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
			return err
		}
		if err := c.openAndUnlock(modeFor(""), *passFile); err != nil {
			return err
		}
		r := c.svc.Questions(c.ctx, operator)
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r)
		}
		return printQuestions(c.out, r.Memories)

	case "rollback":
		to := fs.Int("to", 0, "the version to restore")
		pos, err := parse(fs, args, 1, 1, "a memory ID and --to N")
		if err != nil {
			return err
		}
		if *to < 1 {
			return usage("memory rollback needs --to N with the version to restore")
		}
		if err := c.openForMemory(pos[0], *passFile); err != nil {
			return err
		}
		r := c.svc.Rollback(c.ctx, operator, pos[0], *to)
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r.Memory)
		}
		return printf(c.out, "rolled %s back to version %d as version %d\n", pos[0], *to, r.Memory.Version)

	case "list":
		part := fs.String("partition", "", "only this partition (public, internal, sensitive, archive)")
		if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
			return err
		}
		if err := c.openAndUnlock(modeFor(*part), *passFile); err != nil {
			return err
		}
		in := app.ListInput{}
		if *part != "" {
			in.Partitions = []vault.Partition{vault.Partition(*part)}
		}
		r := c.svc.List(c.ctx, operator, in)
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r)
		}
		return printList(c.out, c.o.Stderr, r.Memories, r.Hidden, r.Damaged)

	case "merge":
		strategy := fs.String("strategy", "union", "union (keep every text), prioritize (keep the most trusted) or intersection (keep what all agree on)")
		pos, err := parse(fs, args, 2, -1, "two or more memory IDs")
		if err != nil {
			return err
		}
		if err := c.openAndUnlock(unlockIfEasy, *passFile); err != nil {
			return err
		}
		r := c.svc.Merge(c.ctx, operator, app.MergeInput{IDs: pos, Strategy: app.MergeStrategy(*strategy)})
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r.Memory)
		}
		return printf(c.out, "merged %d memories into %s; the sources are archived with a pointer to it\n", len(pos), r.Memory.ID)

	case "split":
		pos, err := parse(fs, args, 3, -1, "a memory ID and two or more PART texts")
		if err != nil {
			return err
		}
		if err := c.openForMemory(pos[0], *passFile); err != nil {
			return err
		}
		r := c.svc.Split(c.ctx, operator, app.SplitInput{ID: pos[0], Parts: pos[1:]})
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		if *jsonOut {
			return printJSON(c.out, r.Memories)
		}
		for _, m := range r.Memories {
			printLine(c.out, m.ID)
		}
		return nil
	}
	return usage("unknown memory subcommand %q", sub)
}

// openForMemory opens the vault and unlocks it if memory id is sealed.
func (c *cmd) openForMemory(id, passFile string) error {
	if err := c.open(); err != nil {
		return err
	}
	// A failed Stat (no such memory, damage) is reported by the service call.
	info, _ := c.v.Stat(id)
	mode := unlockIfEasy
	if info.Sealed {
		mode = unlockRequired
	}
	return c.unlock(mode, passFile, true)
}

// warn prints what the write guard changed ("secrets were redacted",
// "stored encrypted in the sensitive partition") on stderr, one line each.
func (c *cmd) warn(warnings []string) {
	for _, w := range warnings {
		printf(c.o.Stderr, "engram: %s\n", w)
	}
}
