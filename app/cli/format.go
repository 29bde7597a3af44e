package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printLine(w io.Writer, s string) error {
	_, err := fmt.Fprintln(w, s)
	return err
}

func printf(w io.Writer, format string, args ...any) error {
	_, err := fmt.Fprintf(w, format, args...)
	return err
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }

// preview is the first line of s, cut to n characters.
func preview(s string, n int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if utf8.RuneCountInString(s) > n {
		r := []rune(s)
		s = string(r[:n-1]) + "…"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func printMemory(w io.Writer, m *app.Memory) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "id:\t%s\n", m.ID)
	fmt.Fprintf(tw, "partition:\t%s\n", m.Partition)
	fmt.Fprintf(tw, "kind / field / tier:\t%s / %s / %s\n", m.Kind, m.Field, m.Tier)
	fmt.Fprintf(tw, "trust / confidence:\t%s / %.2f\n", m.Trust, m.Confidence)
	src := string(m.Source.Type)
	if m.Source.AgentID != "" {
		src += " from " + m.Source.AgentID
	}
	if note := app.ReportedNote(m.Source); note != "" {
		src += " (" + note + ")"
	}
	fmt.Fprintf(tw, "source:\t%s\n", src)
	if len(m.Tags) > 0 {
		fmt.Fprintf(tw, "tags:\t%s\n", strings.Join(m.Tags, ", "))
	}
	fmt.Fprintf(tw, "version:\t%d (updated %s)\n", m.Version, stamp(m.Updated))
	fmt.Fprintf(tw, "created:\t%s by %s\n", stamp(m.Created), m.Owner)
	if m.Expires != nil {
		fmt.Fprintf(tw, "expires:\t%s\n", stamp(*m.Expires))
	}
	if why, ok := app.QuestionedBy(m); ok {
		fmt.Fprintf(tw, "status:\t%s\n", app.QuestionLabel(why))
	}
	for _, q := range app.OpenQuestions(m) {
		if q.Agent != vault.AgentOperator {
			fmt.Fprintf(tw, "report:\t%s\n", app.VerificationLine(q))
		}
	}
	fmt.Fprintf(tw, "pinned:\t%s\n", yesNo(m.Pinned))
	fmt.Fprintf(tw, "content hash:\t%s\n", m.ContentHash)
	if err := tw.Flush(); err != nil {
		return err
	}
	return printf(w, "\n%s\n", m.Content)
}

func printList(w, stderr io.Writer, ms []app.Memory, hidden, damaged int) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPARTITION\tKIND\tVER\tCONTENT")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", m.ID, m.Partition, m.Kind, m.Version, preview(m.Content, 60))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if hidden > 0 {
		fmt.Fprintf(stderr, "engram: %d sensitive memories not shown: the vault is locked (set ENGRAM_PASSPHRASE or use --passphrase-file)\n", hidden)
	}
	if damaged > 0 {
		fmt.Fprintf(stderr, "engram: %d damaged records not shown; run 'engram doctor', and restore them from a backup with 'engram import'\n", damaged)
	}
	return nil
}

func printHistory(w io.Writer, m *app.Memory, vers []app.Version) error {
	p := m.Provenance
	fmt.Fprintf(w, "Memory %s, version %d\n\nProvenance:\n", m.ID, m.Version)
	g := p.Genesis
	fmt.Fprintf(w, "  %s  created by %s from %s", stamp(g.Time), g.Agent, g.Source.Type)
	if g.Context != "" {
		fmt.Fprintf(w, " (%s)", g.Context)
	}
	fmt.Fprintln(w)
	for _, mod := range p.Modifications {
		fmt.Fprintf(w, "  %s  %s by %s -> version %d, previous state %s", stamp(mod.Time), mod.Operation, mod.Agent, mod.Version, short(mod.PrevHash))
		if mod.Reason != "" {
			fmt.Fprintf(w, " (%s)", mod.Reason)
		}
		fmt.Fprintln(w)
	}
	for _, ver := range p.Verifications {
		fmt.Fprintf(w, "  %s  %s\n", stamp(ver.Time), app.VerificationLine(ver))
	}
	fmt.Fprintln(w, "\nVersions:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  VER\tTIME\tAGENT\tOP\tPINNED\tSTATE\tCONTENT")
	for _, v := range vers {
		op := string(v.Operation)
		if op == "" {
			op = "CREATE"
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\n", v.Version, v.Time[:19], v.Agent, op, yesNo(v.Pinned), short(v.StateHash), preview(v.Memory.Content, 40))
	}
	return tw.Flush()
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func printAudit(w io.Writer, es []app.AuditEntry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SEQ\tTIME\tAGENT\tACTION\tRESULT\tMEMORY\tFIELD\tDETAIL")
	for _, e := range es {
		detail := e.Reason
		if e.Count > 0 {
			detail = strings.TrimSpace(fmt.Sprintf("count=%d %s", e.Count, detail))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Seq, stamp(e.Time), e.Agent, e.Action, e.Result, e.MemoryID, e.Field, detail)
	}
	return tw.Flush()
}

func printJSONLine(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// printQuestions lists the memories waiting for the user's verdict, with
// each standing question.
func printQuestions(w io.Writer, ms []app.Memory) error {
	if len(ms) == 0 {
		return printLine(w, "no memory is questioned")
	}
	for _, m := range ms {
		fmt.Fprintf(w, "%s  %s\n", m.ID, preview(m.Content, 60))
		for _, q := range app.OpenQuestions(&m) {
			line := app.VerificationLine(q)
			if q.Agent == vault.AgentOperator {
				line = "you: " + app.QuestionLabel(q.Evidence)
			}
			fmt.Fprintf(w, "    %s\n", line)
		}
	}
	return printLine(w, "confirm or refute each: engram memory confirm|refute ID")
}
