package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/app/recall"
)

// recallEngine builds the recall engine the vault's settings ask for,
// as engram serve loads it; without the model, recall runs on keywords
// alone, and the status says why.
func (c *cmd) recallEngine() (*recall.Engine, app.RecallStatus) {
	return host.NewRecall(c.settings, "")
}

// modelLine describes the model recall uses: "use-lite-v2 (embedded,
// verified)".
func modelLine(st app.RecallStatus) string {
	where := st.Location
	if st.Verified {
		where += ", verified against its pinned SHA-256 hashes"
	}
	return fmt.Sprintf("%s (%s)", st.Model, where)
}

// openWithRecall opens and unlocks the vault with a service that recalls
// (in a running Engram, its own).
func (c *cmd) openWithRecall(mode unlockMode, passFile string) error {
	if err := c.openAndUnlock(mode, passFile); err != nil {
		return err
	}
	if c.host != nil {
		if st := c.svc.RecallStatus(); !st.Semantic {
			fmt.Fprintf(c.o.Stderr, "engram: semantic recall is off: %s; keyword recall still works\n", st.KeywordOnly)
		}
		return nil
	}
	engine, status := c.recallEngine()
	if !status.Semantic {
		fmt.Fprintf(c.o.Stderr, "engram: semantic recall is off: %s; keyword recall still works\n", status.KeywordOnly)
	}
	if c.idleEmbedding {
		app.SpareProc()
	}
	svc, err := app.New(c.v, app.Options{Now: c.o.Now, Recall: engine, RecallStatus: status, Guard: c.settings.GuardPolicy(), Conflicts: c.settings.Conflicts, Lifecycle: c.settings.DecayPolicy(), IdleEmbedding: c.idleEmbedding})
	if err != nil {
		return err
	}
	c.svc.Close() // the one open made, without recall
	c.svc = svc
	return nil
}

// memoryRecall is `engram memory recall QUERY`.
func (c *cmd) memoryRecall(args []string) error {
	fs := newFlags("memory recall")
	jsonOut := fs.Bool("json", false, "print JSON")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	mode := fs.String("mode", "hybrid", "hybrid, semantic or exact")
	limit := fs.Int("limit", 10, "the most results (0: every memory above the relevance floor)")
	context := fs.Bool("context", false, "print the context block an agent would get")
	archived := fs.Bool("archived", false, "include archived memories")
	pos, err := parse(fs, args, 1, 1, "one QUERY argument (quote it)")
	if err != nil {
		return err
	}
	if err := c.openWithRecall(unlockIfEasy, *passFile); err != nil {
		return err
	}
	// The user sees every memory above the floor; --context shows what
	// an agent would be given, within the per-recall limits.
	find := c.svc.Search
	if *context {
		find = c.svc.Recall
	}
	r := find(c.ctx, operator, app.RecallInput{Query: pos[0], Limit: *limit, Mode: app.RecallMode(*mode), Filters: app.RecallFilters{IncludeArchived: *archived}})
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	switch {
	case *jsonOut:
		return printJSON(c.out, r)
	case *context:
		return printLine(c.out, r.Context)
	}
	if r.KeywordOnly != "" {
		if err := printLine(c.out, "keyword recall only: "+r.KeywordOnly); err != nil {
			return err
		}
	}
	if strings.HasPrefix(r.Message, app.NothingPassedFloor) {
		return printLine(c.out, fmt.Sprintf("%s (%d weaker matches left out)", r.Message, r.BelowFloor))
	}
	tw := tabwriter.NewWriter(c.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SCORE\tID\tPARTITION\tCONTENT")
	for _, res := range r.Results {
		fmt.Fprintf(tw, "%.3f\t%s\t%s\t%s\n", res.Score, res.ID, res.Partition, preview(res.Content, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Total > len(r.Results) {
		return printLine(c.out, fmt.Sprintf("the %d best of %d matches; --limit 0 shows them all", len(r.Results), r.Total))
	}
	return nil
}
