package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/importer"
	"github.com/engram-app/engram/vault"
)

// hasFlag reports whether args name the flag (--name, -name, --name=V),
// before any "--".
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		a = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// importFrom is `engram import --from FORMAT PATH`: the memory and rules
// files of other tools, each entry through the write admission as an
// importer's write (see app.ImportEntries). The whole file is parsed
// before the vault is opened: a malformed file changes nothing.
func (c *cmd) importFrom(args []string) error {
	fs := newFlags("import")
	from := fs.String("from", "", "the file's format: "+formatNames())
	dry := fs.Bool("dry-run", false, "print what would be stored, merged, queued, redacted or skipped; store nothing")
	agent := fs.String("agent", "", "write the entries as this registered agent's, so that it (and the agents that read its memories) recall them")
	partition := fs.String("partition", "", "ask for this partition (public: every agent reads them); personal data still goes to sensitive")
	asJSON := fs.Bool("json", false, "print the outcome of every entry as JSON")
	passFile := fs.String("passphrase-file", "", "read the vault passphrase from this file")
	pos, err := parse(fs, args, 1, 1, "one PATH argument (a file, or a folder of the format's files)")
	if err != nil {
		return err
	}
	format, err := importer.ParseFormat(*from)
	if err != nil {
		return usage("import --from: %v", err)
	}
	p := vault.Partition(*partition)
	if p != "" && p != vault.Public && p != vault.Internal && p != vault.Sensitive {
		return usage("import --partition: %q is not public, internal or sensitive", *partition)
	}
	path := pos[0]
	entries, skips, err := c.readImport(format, path)
	if err != nil {
		if se, ok := errors.AsType[*importer.SyntaxError](err); ok {
			return fail(exitFailed, "%s is not a valid %s file: %s, line %d: %s; nothing was imported", path, format, se.File, se.Line, se.Msg)
		}
		return fail(exitFailed, "import: %v; nothing was imported", err)
	}
	// With recall, so that duplicates of existing memories are found and
	// merged, and what is stored is indexed.
	c.idleEmbedding = true
	if err := c.openWithRecall(unlockRequired, *passFile); err != nil {
		return err
	}
	show, clear := c.progress("importing")
	r := c.svc.ImportEntries(c.ctx, operator, entries, app.ImportOptions{Format: format, Agent: *agent, Partition: p, DryRun: *dry, Progress: show})
	if clear != nil {
		clear()
	}
	if r.Status == app.StatusNotFound || r.Status == app.StatusInvalid {
		return usage("import: %s", r.Message)
	}
	if *asJSON {
		if r.Results == nil {
			r.Results = []app.ImportResult{}
		}
		if skips == nil {
			skips = []importer.Skip{}
		}
		enc := json.NewEncoder(c.out)
		enc.SetIndent("", "  ")
		out := struct {
			app.ImportEntriesResponse
			FileSkips []importer.Skip `json:"file_skips"`
			DryRun    bool            `json:"dry_run"`
		}{r, skips, *dry}
		if err := enc.Encode(out); err != nil {
			return err
		}
		return fromResponse(r.Response)
	}
	would := ""
	if *dry {
		would = "would be "
	}
	files := 0 // files skipped whole: links out of the folder, named pipes
	for _, s := range skips {
		if s.Line == 0 {
			files++
			fmt.Fprintf(c.out, "%-8s %s: %s\n", "SKIPPED", s.File, s.Why)
			continue
		}
		fmt.Fprintf(c.out, "%-8s %s, line %d: %s\n", "SKIPPED", s.File, s.Line, s.Why)
	}
	for _, res := range r.Results {
		fmt.Fprintf(c.out, "%-8s %s", strings.ToUpper(string(res.Outcome)), strings.TrimPrefix(res.Where, "imported from "))
		if res.Outcome == app.ImportStored || res.Outcome == app.ImportMerged {
			fmt.Fprintf(c.out, " -> %s, %s", res.Field, res.Partition)
		}
		if res.ID != "" {
			fmt.Fprintf(c.out, " [%s]", res.ID)
		}
		if res.Redacted {
			fmt.Fprint(c.out, " (secret redacted)")
		}
		if res.Why != "" {
			fmt.Fprintf(c.out, ": %s", res.Why)
		}
		if res.Text != "" {
			fmt.Fprintf(c.out, "\n         %q", preview(res.Text, 100))
		}
		fmt.Fprintln(c.out)
		for _, w := range res.Warnings {
			fmt.Fprintf(c.out, "         warning: %s\n", w)
		}
	}
	if err := fromResponse(r.Response); err != nil {
		return fail(exitFailed, "import stopped after %d of %d entries: %s", len(r.Results), len(entries), r.Message)
	}
	fmt.Fprintf(c.out, "%d entries from %s as %s: %d %sstored, %d %smerged into existing memories, %d %squeued for review, %d %srefused, %d skipped",
		len(entries), path, r.Writer, r.Stored, would, r.Merged, would, r.Queued, would, r.Refused, would, r.Skipped+len(skips)-files)
	fmt.Fprintf(c.out, "; %d with secrets redacted, %d in the sensitive partition", r.Redacted, r.Sensitive)
	switch {
	case files == 1:
		fmt.Fprint(c.out, "; 1 file not read (SKIPPED above)")
	case files > 1:
		fmt.Fprintf(c.out, "; %d files not read (SKIPPED above)", files)
	}
	fmt.Fprintln(c.out)
	switch {
	case *dry:
		fmt.Fprintln(c.out, "dry run: nothing was stored")
	case r.Queued > 0:
		fmt.Fprintln(c.out, "review the queued entries with 'engram quarantine list'")
	}
	if *agent == "" && p != vault.Public && r.Stored > 0 {
		fmt.Fprintln(c.out, "imported memories are internal: agents recall them only with --agent NAME (that agent's) or --partition public")
	}
	return nil
}

func formatNames() string {
	s := make([]string, len(importer.Formats))
	for i, f := range importer.Formats {
		s[i] = string(f)
	}
	return strings.Join(s, "|")
}
