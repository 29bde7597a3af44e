package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/engram-app/engram/partitions"
	"github.com/engram-app/engram/quarantine/guard"
)

// guardIn is one input line of `engram guard`.
type guardIn struct {
	ID     json.RawMessage `json:"id"`
	Text   string          `json:"text"`
	Source string          `json:"source"`
}

// guardFinding is one finding. Level is set for secrets only: definite
// and probable secrets are redacted, possible ones are stored only once
// confirmed.
type guardFinding struct {
	Kind  string `json:"kind"`
	Type  string `json:"type"`
	Level string `json:"level,omitempty"`
	Start int    `json:"start"`
	End   int    `json:"end"`
}

type guardOut struct {
	ID        json.RawMessage `json:"id"`
	Verdict   string          `json:"verdict"`
	Risk      float64         `json:"risk"`
	Partition string          `json:"partition"`
	Findings  []guardFinding  `json:"findings"`
	Redacted  string          `json:"redacted"`
	Error     string          `json:"error,omitempty"`
}

// guardCmd screens texts read as JSON lines on stdin and writes one JSON
// line per input. It needs no vault. Finding offsets are in characters
// (Unicode code points) of the input text.
func (c *cmd) guardCmd(args []string) error {
	fs := newFlags("guard")
	source := fs.String("source", "", "source type for lines that name none (default tool_output)")
	fs.Bool("jsonl", true, "read and write JSON lines (the only format)")
	redact := fs.Bool("redact-pii", false, "redact personal data instead of keeping it for encryption")
	if _, err := parse(fs, args, 0, 0, "no arguments; it reads JSON lines on stdin"); err != nil {
		return err
	}
	p := guard.Policy{}
	if *redact {
		p.PII = guard.PIIRedact
	}
	g, err := guard.New(p)
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(c.o.Stdin)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	enc := json.NewEncoder(c.out)
	enc.SetEscapeHTML(false)
	line := 0
	for sc.Scan() {
		line++
		if len(sc.Bytes()) == 0 {
			continue
		}
		var in guardIn
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			if err := enc.Encode(guardOut{ID: in.ID, Error: fmt.Sprintf("line %d: not a JSON object with id and text: %v", line, err), Findings: []guardFinding{}}); err != nil {
				return err
			}
			continue
		}
		src := in.Source
		if src == "" {
			src = *source
		}
		if src == "" {
			src = guard.SourceToolOutput
		}
		res := g.Check(guard.Input{Text: in.Text, Source: src})
		out := guardOut{ID: in.ID, Verdict: string(res.Verdict), Risk: res.Risk, Redacted: res.Redacted, Findings: []guardFinding{}}
		out.Partition = partitions.Classify(partitions.Facts{HasPII: res.HasPII && p.PII != guard.PIIRedact}).Bucket
		for _, f := range res.Findings {
			gf := guardFinding{Kind: f.Kind, Type: f.Type, Start: runeOffset(in.Text, f.Start), End: runeOffset(in.Text, f.End)}
			if f.Kind == guard.KindSecret {
				gf.Level = f.Level
			}
			out.Findings = append(out.Findings, gf)
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fail(exitFailed, "reading input line %d: %v", line+1, err)
	}
	return nil
}

// runeOffset converts a byte offset in s to a character offset.
func runeOffset(s string, b int) int {
	if b > len(s) {
		b = len(s)
	}
	return utf8.RuneCountInString(s[:b])
}
