package benchreport

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/cmd/engram-bench/internal/benchreport/mcppeer"
	"github.com/engram-app/engram/cmd/engram-bench/internal/eval"
	"github.com/engram-app/engram/cmd/engram-bench/internal/scale"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// Options configure a report run.
type Options struct {
	Out      string // directory for report.md and the charts
	Eval     string // the evaluation corpora (../shared/eval)
	ModelDir string // the embedding model; "" looks where Engram looks
	// Engram is the engram binary whose "mcp" command is compared with the
	// reference MCP memory server; "" builds one with the go command.
	Engram string
	// Quick leaves out the semantic and hybrid recall runs (they embed
	// 5,183 abstracts) and uses fewer samples.
	Quick bool
	// ScaleN is the largest synthetic vault of the scale section
	// (1,000,000; 100,000 when Quick); negative leaves the section out.
	ScaleN int
	Log    io.Writer
}

// latency is one operation's percentiles.
type latency struct {
	Name     string
	P50, P99 time.Duration
	N        int
}

// quality is one recall or precision figure.
type quality struct {
	Name  string
	Value float64 // 0..1
	Note  string
}

// Run measures everything and writes the report.
func Run(ctx context.Context, o Options) error {
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	logf := func(format string, args ...any) {
		if o.Log != nil {
			fmt.Fprintf(o.Log, format+"\n", args...)
		}
	}
	n := 300
	if o.Quick {
		n = 100
	}
	var md strings.Builder
	fmt.Fprintf(&md, "# Engram benchmark report\n\nGenerated %s by `engram-bench report` on this machine (%s). Percentiles are over %d operations each.\n\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), machine(), n)

	logf("latency: vault, write path, guard")
	lats, err := latencies(ctx, n)
	if err != nil {
		return err
	}
	md.WriteString("## Latency\n\n| operation | p50 | p99 |\n|---|---|---|\n")
	for _, l := range lats {
		fmt.Fprintf(&md, "| %s | %s | %s |\n", l.Name, ms(l.P50), ms(l.P99))
	}
	if err := latencyChart(filepath.Join(o.Out, "latency.png"), lats); err != nil {
		return err
	}
	md.WriteString("\n![latency percentiles](latency.png)\n\n")

	logf("MCP over stdio: engram mcp and %s", mcppeer.Reference)
	if err := mcpSection(ctx, o, &md, logf); err != nil {
		return err
	}

	logf("guard quality on %s", o.Eval)
	gq, err := guardQuality(filepath.Join(o.Eval, "guard"))
	if err != nil {
		return err
	}
	md.WriteString("## Guard quality (development corpora)\n\n| measure | value | note |\n|---|---|---|\n")
	for _, q := range gq {
		fmt.Fprintf(&md, "| %s | %.1f%% | %s |\n", q.Name, 100*q.Value, q.Note)
	}
	if err := qualityChart(filepath.Join(o.Out, "guard.png"), "Guard on the development corpora (%)", gq); err != nil {
		return err
	}
	md.WriteString("\n![guard quality](guard.png)\n\nThe injection figures are in-sample: the shipped model was trained on this corpus. `ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEval -v` gives the held-out-source figures.\n\n")

	logf("secrets: the guard and gitleaks")
	minTime := 3 * time.Second
	if o.Quick {
		minTime = time.Second
	}
	scans, rows, err := secretPeers(filepath.Join(o.Eval, "guard"), minTime)
	if err != nil {
		return err
	}
	fmt.Fprintf(&md, "### Side by side: the guard and gitleaks on the secrets corpus\n\nThe same %d rows of `secrets-dev.jsonl` through each, in this process: gitleaks as a Go library with its default configuration. A row counts as found when the scanner reports any secret in it. Throughput is over all rows, repeated for at least %s.\n\n", rows, minTime)
	md.WriteString("| scanner | recall on positives | negatives flagged | throughput | runs |\n|---|---|---|---|---|\n")
	for _, sc := range scans {
		fmt.Fprintf(&md, "| %s | %.1f%% (%d/%d) | %.1f%% (%d/%d) | %.2f MB/s | %s |\n", sc.Name, 100*frac(sc.Hit, sc.Pos), sc.Hit, sc.Pos,
			100*frac(sc.Flagged, sc.Neg), sc.Flagged, sc.Neg, sc.MBps, sc.Note)
	}
	if len(scans) == 2 {
		e, gl := scans[0], scans[1]
		fmt.Fprintf(&md, "\nRatios, guard / gitleaks: recall %s, negatives flagged %s, throughput %s. Labels follow Nosey Parker's rules, so some positives look like placeholders (../shared/eval/README.md).\n\n",
			ratio(frac(e.Hit, e.Pos), frac(gl.Hit, gl.Pos)), ratio(frac(e.Flagged, e.Neg), frac(gl.Flagged, gl.Neg)), ratio(e.MBps, gl.MBps))
	}

	modes := []recall.Mode{recall.Exact, recall.Hybrid, recall.Semantic}
	if o.Quick {
		modes = modes[:1]
	}
	sf := filepath.Join(o.Eval, "search", "scifact")
	logf("recall on SciFact (%v)", modes)
	rep, err := eval.Retrieval(ctx, eval.Options{Corpus: filepath.Join(sf, "corpus.jsonl"), Queries: filepath.Join(sf, "queries.jsonl"),
		Qrels: filepath.Join(sf, "qrels", "test.tsv"), Modes: modes, K: 100, Recency: 0.3, ModelDir: o.ModelDir})
	if err != nil {
		return err
	}
	md.WriteString("## Recall quality (BEIR SciFact, 300 claims over 5,183 abstracts)\n\n| mode | nDCG@10 | R@100 | query p50 | query p99 |\n|---|---|---|---|---|\n")
	var rq []quality
	for _, m := range rep.Modes {
		x := rep.ByMode[m]
		fmt.Fprintf(&md, "| %s | %.3f | %.3f | %s | %s |\n", m, x.NDCG10, x.Recall100, ms(x.P50), ms(x.P99))
		rq = append(rq, quality{Name: string(m) + " nDCG@10", Value: x.NDCG10})
	}
	fmt.Fprintf(&md, "\nModel: %s. Published: BM25 0.679 (Anserini), all-MiniLM-L6-v2 0.645.\n", rep.Model)
	if err := qualityChart(filepath.Join(o.Out, "recall.png"), "Recall on SciFact: nDCG@10 (%)", rq); err != nil {
		return err
	}
	md.WriteString("\n![recall quality](recall.png)\n")
	md.WriteString(bm25VsHybrid(rep))
	if !o.Quick {
		emb, err := eval.Model(o.ModelDir)
		if err != nil {
			return err
		}
		conv, err := eval.ConvReport(ctx, filepath.Join(o.Eval, "search", "locomo-dev", "turns"), emb, logf)
		if err != nil {
			return err
		}
		md.WriteString("\n" + conv)
		short, err := eval.ShortReport(ctx, eval.AgentVault, o.ModelDir, logf)
		if err != nil {
			return err
		}
		md.WriteString("\n" + short)
	}
	if err := scaleSection(ctx, o, &md, logf); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(o.Out, "report.md"), []byte(md.String()), 0o644)
}

// scaleSection measures recall on synthetic vaults of 100,000 memories
// and o.ScaleN (see package scale).
func scaleSection(ctx context.Context, o Options, md *strings.Builder, logf func(string, ...any)) error {
	n := o.ScaleN
	switch {
	case n < 0:
		return nil
	case n == 0 && o.Quick:
		n = 100_000
	case n == 0:
		n = 1_000_000
	}
	emb, err := eval.Model(o.ModelDir)
	if err != nil {
		return err
	}
	sizes := []int{100_000}
	if n != 100_000 {
		sizes = append(sizes, n)
	}
	var rs []scale.Result
	var lats []latency
	for _, size := range sizes {
		logf("scale: %d synthetic memories", size)
		r, err := scale.Run(ctx, scale.Options{N: size, Queries: 200, Embed: emb, Log: o.Log})
		if err != nil {
			return err
		}
		rs = append(rs, r)
		lats = append(lats, latency{Name: fmt.Sprintf("hybrid recall, %d memories", size), P50: r.P50, P99: r.P99, N: r.QueriesRun})
	}
	md.WriteString("\n## Scale (synthetic vaults)\n\n`engram-bench scale -n N`: memories of 20 to 40 Zipf-distributed words with clustered 512-d vectors, loaded into the recall index as at start-up (start to ready: from the first memory handed to the index until it answers), then 200 hybrid recalls, each query embedded by " + rs[0].Model + " (counted) and searched with a vector near a cluster. Heap: the live heap the index keeps after a GC.\n\n")
	md.WriteString(scale.Markdown(rs))
	if err := latencyChart(filepath.Join(o.Out, "scale.png"), lats); err != nil {
		return err
	}
	md.WriteString("\n![recall latency at scale](scale.png)\n")
	return nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func machine() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	cores := 0
	model := ""
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "processor") {
			cores++
		}
		if model == "" && strings.HasPrefix(line, "model name") {
			model = strings.TrimSpace(line[strings.Index(line, ":")+1:])
		}
	}
	return fmt.Sprintf("%s, %d cores", model, cores)
}

func percentiles(ds []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(ds)
	return ds[len(ds)/2], ds[min(len(ds)-1, len(ds)*99/100)]
}

// latencies times the vault (with fsync), the memory service's write path
// and the guard on 500-character memories.
func latencies(ctx context.Context, n int) ([]latency, error) {
	dir, err := os.MkdirTemp("", "engram-report-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	v, err := vault.Create(ctx, filepath.Join(dir, "vault.db"), []byte("engram-report"), vault.CreateOptions{KDF: vault.KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}})
	if err != nil {
		return nil, err
	}
	defer v.Close()
	text := strings.Repeat("The deploy script lives in ops/deploy.sh and needs two reviewers. ", 8)[:500]
	a := vault.Actor{Agent: vault.AgentOperator}
	var out []latency
	timeIt := func(name string, fn func(i int) error) error {
		ds := make([]time.Duration, n)
		for i := range n {
			start := time.Now()
			if err := fn(i); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			ds[i] = time.Since(start)
		}
		p50, p99 := percentiles(ds)
		out = append(out, latency{name, p50, p99, n})
		return nil
	}
	var ids []string
	for _, p := range []vault.Partition{vault.Internal, vault.Sensitive} {
		if err := timeIt("vault write, "+string(p)+" (fsync)", func(i int) error {
			m, err := v.Add(vault.Memory{Content: fmt.Sprintf("%d %s", i, text), Kind: vault.Fact, Field: vault.Learnings, Tier: vault.Episodic, Partition: p,
				Trust: vault.TrustOperator, Confidence: 0.9, Source: vault.Source{Type: vault.SourceExplicitSave}}, a)
			ids = append(ids, m.ID)
			return err
		}); err != nil {
			return nil, err
		}
	}
	if err := timeIt("vault read (audited)", func(i int) error { _, err := v.Get(ids[i%len(ids)], a); return err }); err != nil {
		return nil, err
	}
	svc, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(nil))})
	if err != nil {
		return nil, err
	}
	agent := app.Request{Caller: app.Caller{Agent: "bench-agent", Session: "s"}, Authorized: true}
	if err := timeIt("agent store through the guard (fsync)", func(i int) error {
		r := svc.Store(ctx, agent, app.StoreInput{Content: fmt.Sprintf("note %d: %s", i, text[:480])})
		if !r.OK() {
			return fmt.Errorf("%s %s", r.Status, r.Message)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	if err := timeIt("agent recall, keyword (600 memories)", func(i int) error {
		r := svc.Recall(ctx, agent, app.RecallInput{Query: "where does the deploy script live?", Mode: "exact"})
		if !r.OK() {
			return fmt.Errorf("%s", r.Message)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	g, err := guard.New(guard.Policy{})
	if err != nil {
		return nil, err
	}
	if err := timeIt("guard check, 500 characters", func(i int) error {
		g.Check(guard.Input{Text: text, Source: guard.SourceAIInference})
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// guardQuality runs the shipped guard over the development corpora.
func guardQuality(dir string) ([]quality, error) {
	g, err := guard.New(guard.Policy{})
	if err != nil {
		return nil, err
	}
	var out []quality
	type labelled struct{ Text, Label string }
	sec, err := eval.ReadJSONL[labelled](filepath.Join(dir, "secrets-dev.jsonl"))
	if err != nil {
		return nil, err
	}
	var pos, hit, neg, flagged int
	for _, s := range sec {
		r := g.Check(guard.Input{Text: s.Text, Confirmed: true})
		if s.Label == "secret" {
			pos++
			if r.HasSecret {
				hit++
			}
		} else {
			neg++
			if r.HasSecret {
				flagged++
			}
		}
	}
	out = append(out, quality{"secrets: recall", frac(hit, pos), fmt.Sprintf("%d/%d positives redacted (definite or probable)", hit, pos)},
		quality{"secrets: negatives flagged", frac(flagged, neg), fmt.Sprintf("%d/%d; target at most 2%%", flagged, neg)})

	type span struct {
		Type       string
		Start, End int
	}
	type piiRow struct {
		Text  string
		Spans []span
	}
	pii, err := eval.ReadJSONL[piiRow](filepath.Join(dir, "pii-dev.jsonl"))
	if err != nil {
		return nil, err
	}
	types := []string{"EMAIL_ADDRESS", "PHONE_NUMBER", "CREDIT_CARD", "US_SSN", "IP_ADDRESS", "IBAN_CODE"}
	found, total := map[string]int{}, map[string]int{}
	for _, row := range pii {
		r := g.Check(guard.Input{Text: row.Text})
		for _, s := range row.Spans {
			if !slices.Contains(types, s.Type) {
				continue
			}
			total[s.Type]++
			for _, f := range r.Findings {
				if f.Kind == guard.KindPII && f.Start < s.End && s.Start < f.End {
					found[s.Type]++
					break
				}
			}
		}
	}
	for _, t := range types {
		out = append(out, quality{"PII recall: " + t, frac(found[t], total[t]), fmt.Sprintf("%d/%d spans", found[t], total[t])})
	}

	inj, err := eval.ReadJSONL[labelled](filepath.Join(dir, "injection-dev.jsonl"))
	if err != nil {
		return nil, err
	}
	pos, hit, neg, flagged = 0, 0, 0, 0
	for _, s := range inj {
		r := g.Check(guard.Input{Text: s.Text, Source: guard.SourceAIInference})
		bad := r.Verdict != guard.Safe
		if s.Label == "injection" {
			pos++
			if bad {
				hit++
			}
		} else {
			neg++
			if bad {
				flagged++
			}
		}
	}
	out = append(out, quality{"injection: recall (in-sample)", frac(hit, pos), fmt.Sprintf("%d/%d", hit, pos)},
		quality{"injection: benign flagged (in-sample)", frac(flagged, neg), fmt.Sprintf("%d/%d", flagged, neg)})
	return out, nil
}

func frac(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}
