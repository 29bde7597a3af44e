package benchreport

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/engram-app/engram/cmd/engram-bench/internal/eval"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// secretScan is one secret scanner's figures on the secrets corpus.
type secretScan struct {
	Name, Note    string
	Hit, Pos      int // positives found, of all positives
	Flagged, Neg  int // negatives flagged, of all negatives
	MBps          float64
	Bytes, Passes int
	scanned       time.Duration
}

// chunkSize bounds what one scanner call sees. gitleaks' rules slow down
// badly on long inputs (13 s on a single 2.7 MB string), and memories
// are short, so longer texts are cut at line ends into pieces of at most
// this size, for both scanners alike.
const chunkSize = 16 << 10

// chunks cuts text at line ends (or anywhere, for a longer line) into
// pieces of at most n bytes.
func chunks(text string, n int) []string {
	var out []string
	for len(text) > n {
		cut := strings.LastIndexByte(text[:n], '\n') + 1
		if cut == 0 {
			cut = n
		}
		out = append(out, text[:cut])
		text = text[cut:]
	}
	return append(out, text)
}

// anyChunk reports whether flags holds for some chunk of text.
func anyChunk(text string, flags func(string) bool) bool {
	for _, c := range chunks(text, chunkSize) {
		if flags(c) {
			return true
		}
	}
	return false
}

// secretPeers runs Engram's guard and gitleaks (as a library, its default
// rules, decoding as deep as its CLI does) over the same rows of the
// secrets corpus, then times each over all rows, repeated for at least
// minTime, for its throughput.
func secretPeers(dir string, minTime time.Duration) ([]secretScan, int, error) {
	type labelled struct{ Text, Label string }
	rows, err := eval.ReadJSONL[labelled](filepath.Join(dir, "secrets-dev.jsonl"))
	if err != nil {
		return nil, 0, err
	}
	g, err := guard.New(guard.Policy{})
	if err != nil {
		return nil, 0, err
	}
	logging.Logger = zerolog.Nop()
	gl, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, 0, fmt.Errorf("gitleaks: %w", err)
	}
	gl.MaxDecodeDepth = 5 // the CLI's default
	scanners := []struct {
		name, note string
		flags      func(string) bool
	}{
		{"Engram guard", "every detector of Check (secrets, PII, injection)", func(s string) bool {
			return g.Check(guard.Input{Text: s, Confirmed: true}).HasSecret
		}},
		{"gitleaks v8.30.1", fmt.Sprintf("%d default rules", len(gl.Config.Rules)), func(s string) bool {
			return len(gl.DetectString(s)) > 0
		}},
	}
	var out []secretScan
	for _, sc := range scanners {
		r := secretScan{Name: sc.name, Note: sc.note}
		for _, row := range rows {
			found := anyChunk(row.Text, sc.flags)
			if row.Label == "secret" {
				r.Pos++
				if found {
					r.Hit++
				}
			} else {
				r.Neg++
				if found {
					r.Flagged++
				}
			}
		}
		start := time.Now()
		for r.scanned < minTime || r.Passes == 0 {
			for _, row := range rows {
				anyChunk(row.Text, sc.flags)
				r.Bytes += len(row.Text)
			}
			r.Passes++
			r.scanned = time.Since(start)
		}
		r.MBps = float64(r.Bytes) / 1e6 / r.scanned.Seconds()
		out = append(out, r)
	}
	return out, len(rows), nil
}
