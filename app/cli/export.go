package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/vault"
)

// exportReadable is `engram export --format markdown|jsonl FILE`: a
// readable copy of the live memories (not the archive), unencrypted. The
// sensitive partition is left out unless --include-sensitive is given,
// and then only after a warning. The file is written whole or not at all,
// with mode 0600.
func (c *cmd) exportReadable(args []string) error {
	fs := newFlags("export")
	format := fs.String("format", "", "markdown or jsonl: a readable, unencrypted copy (without --format: an encrypted backup)")
	sensitive := fs.Bool("include-sensitive", false, "include the sensitive partition, in plain text (asks for the passphrase)")
	passFile := fs.String("passphrase-file", "", "read the vault passphrase from this file")
	pos, err := parse(fs, args, 1, 1, "one FILE argument")
	if err != nil {
		return err
	}
	var write func(io.Writer, []app.Memory) error
	switch *format {
	case "markdown", "md":
		write = writeMarkdown
	case "jsonl":
		write = writeJSONL
	default:
		return usage("export --format: %q is not markdown or jsonl", *format)
	}
	file := pos[0]
	parts := []vault.Partition{vault.Public, vault.Internal}
	mode := unlockIfEasy
	if *sensitive {
		parts, mode = vault.LivePartitions, unlockRequired
	}
	if err := c.openAndUnlock(mode, *passFile); err != nil {
		return err
	}
	r := c.svc.List(c.ctx, operator, app.ListInput{Partitions: parts})
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	ms := r.Memories
	slices.SortStableFunc(ms, func(a, b app.Memory) int { return a.Created.Compare(b.Created) })
	n := 0
	for _, m := range ms {
		if m.Partition == vault.Sensitive {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(c.o.Stderr, "engram: warning: %s holds %d sensitive memories in plain text; keep it private and delete it when done\n", file, n)
	}
	path, err := c.userPath(file)
	if err != nil {
		return err
	}
	if err := writeAtomic(path, func(w io.Writer) error { return write(w, ms) }); err != nil {
		return fail(exitFailed, "export: %v", err)
	}
	extra := ""
	if r.Damaged > 0 {
		extra = fmt.Sprintf(" (%d damaged records left out: run 'engram doctor')", r.Damaged)
	}
	if !*sensitive {
		extra += " (the sensitive partition left out: --include-sensitive adds it)"
	}
	return printf(c.out, "exported %d memories to %s as %s%s\n", len(ms), file, *format, extra)
}

// writeJSONL writes one memory a line, as the vault records it (with its
// provenance).
func writeJSONL(w io.Writer, ms []app.Memory) error {
	enc := json.NewEncoder(w)
	for i := range ms {
		if err := enc.Encode(&ms[i]); err != nil {
			return err
		}
	}
	return nil
}

// writeMarkdown writes the memories grouped by field, each a list item
// with its id, partition, kind, trust, tags and where it came from.
func writeMarkdown(w io.Writer, ms []app.Memory) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# Engram memories\n\n%d memories.\n", len(ms))
	var fields []vault.Field
	for _, m := range ms {
		if !slices.Contains(fields, m.Field) {
			fields = append(fields, m.Field)
		}
	}
	slices.Sort(fields)
	for _, f := range fields {
		fmt.Fprintf(b, "\n## %s\n\n", f)
		for _, m := range ms {
			if m.Field != f {
				continue
			}
			lines := strings.Split(m.Content, "\n")
			fmt.Fprintf(b, "- %s\n", lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(b, "  %s\n", l)
			}
			meta := []string{"`" + m.ID + "`", string(m.Partition), string(m.Kind), string(m.Tier), "trust " + string(m.Trust), "written by " + m.Owner}
			if len(m.Tags) > 0 {
				meta = append(meta, "tags "+strings.Join(m.Tags, ", "))
			}
			if ctx := m.Provenance.Genesis.Context; ctx != "" {
				meta = append(meta, ctx)
			}
			fmt.Fprintf(b, "  <sub>%s</sub>\n", strings.Join(meta, " · "))
		}
	}
	return b.Flush()
}

// writeAtomic writes a new file at path with mode 0600: a temporary file
// beside it is filled, synced and renamed over path, and the folder is
// synced, so that path holds the old file or the whole new one.
func writeAtomic(path string, fill func(io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if err = fill(f); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
