package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/engram-app/engram/app"
)

// countFlag counts how often a boolean flag is given (--yes --yes).
type countFlag int

func (c *countFlag) String() string   { return fmt.Sprint(int(*c)) }
func (c *countFlag) Set(string) error { *c++; return nil }
func (c *countFlag) IsBoolFlag() bool { return true }

// confirm asks the user on the terminal to type word; without a terminal
// it fails and says which flag to pass.
func (c *cmd) confirm(question, word, flagHint string) error {
	if c.o.ReadLine == nil {
		return usage("no terminal to confirm on: pass %s to confirm", flagHint)
	}
	line, err := c.o.ReadLine(fmt.Sprintf("%s Type %q to confirm: ", question, word))
	if errors.Is(err, errNoTerminal) {
		return usage("no terminal to confirm on: pass %s to confirm", flagHint)
	}
	if err != nil {
		return err
	}
	if strings.TrimSpace(line) != word {
		return fail(exitFailed, "not confirmed; nothing was removed")
	}
	return nil
}

func yesFlag(fs *flag.FlagSet) *countFlag {
	var n countFlag
	fs.Var(&n, "yes", "confirm without asking (twice for clear all)")
	return &n
}

// memoryForget is `engram memory forget TOPIC`.
func (c *cmd) memoryForget(args []string) error {
	fs := newFlags("memory forget")
	yes := yesFlag(fs)
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	pos, err := parse(fs, args, 1, 1, "one TOPIC argument (quote it)")
	if err != nil {
		return err
	}
	if err := c.openWithRecall(unlockRequired, *passFile); err != nil {
		return err
	}
	found := c.svc.FindTopic(c.ctx, operator, pos[0])
	if err := fromResponse(found.Response); err != nil {
		return err
	}
	if len(found.Memories)+len(found.Versions)+len(found.Queued) == 0 {
		return printf(c.out, "no memory mentions %q\n", pos[0])
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPARTITION\tCONTENT")
	ids := make([]string, len(found.Memories))
	for i, m := range found.Memories {
		ids[i] = m.ID
		fmt.Fprintf(tw, "%s\t%s\t%s\n", m.ID, m.Partition, preview(m.Content, 60))
	}
	tw.Flush()
	if n := len(found.Versions); n > 0 {
		fmt.Fprintf(c.out, "and %d older versions of other memories (their current text does not mention it)\n", n)
	}
	if n := len(found.Queued); n > 0 {
		fmt.Fprintf(c.out, "and %d items in the review queue (pending writes or hostile copies)\n", n)
	}
	if *yes == 0 {
		if err := c.confirm(fmt.Sprintf("Purge these %d memories, %d versions and %d queued items for good (no archive)?", len(ids), len(found.Versions), len(found.Queued)), "forget", "--yes"); err != nil {
			return err
		}
	}
	r := c.svc.ForgetTopic(c.ctx, operator, pos[0], ids)
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	return printf(c.out, "forgot %d memories about %q, %d older versions of other memories and %d queued items; no byte of their text is left in the vault file\n", r.Purged, pos[0], r.VersionsDropped, r.QueueDropped)
}

// memoryClear is `engram memory clear episodic|semantic|all`.
func (c *cmd) memoryClear(args []string) error {
	fs := newFlags("memory clear")
	yes := yesFlag(fs)
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	pos, err := parse(fs, args, 1, 1, "episodic, semantic or all")
	if err != nil {
		return err
	}
	scope := app.ClearScope(pos[0])
	need := 1
	if scope == app.ClearAll {
		need = 2
	}
	for i := int(*yes); i < need; i++ {
		q := fmt.Sprintf("Remove every %s memory for good?", scope)
		if i == 1 {
			q = "This removes EVERY memory in the vault. Are you sure?"
		}
		hint := "--yes"
		if need == 2 {
			hint = "--yes --yes"
		}
		if err := c.confirm(q, "clear", hint); err != nil {
			return err
		}
	}
	if err := c.openWithRecall(unlockRequired, *passFile); err != nil {
		return err
	}
	r := c.svc.Clear(c.ctx, operator, scope)
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	return printf(c.out, "cleared %d %s memories\n", r.Purged, scope)
}
