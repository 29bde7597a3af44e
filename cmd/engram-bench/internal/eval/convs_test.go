package eval

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app/recall"
)

// TestConversations logs the conversation sets' figures (ConvSets) in
// hybrid mode with the default configuration, per set: recall_any@3, @5,
// @10 and the share answered with nothing. ENGRAM_EVAL=1 as for the
// cross-validation; ENGRAM_EVAL_LIST, a regular expression, lists the
// questions with an answer of the sets it names that were answered with
// nothing.
func TestConversations(t *testing.T) {
	if os.Getenv("ENGRAM_EVAL") == "" {
		t.Skip("set ENGRAM_EVAL=1 to measure the conversation sets")
	}
	convs, err := LoadConversations(filepath.Join(locomoRoot(), "turns"))
	if err != nil {
		t.Skip(err)
	}
	emb, err := loadModel(os.Getenv("ENGRAM_MODEL_DIR"), true)
	if err != nil {
		t.Skip(err)
	}
	sets := ConvSets(convs)
	var docs []recall.Doc
	for _, c := range convs {
		docs = append(docs, c.Docs...)
	}
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cv, err := NewConvVectors(ctx, emb, docs, ConvTexts(sets, now))
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []recall.Mode{recall.Hybrid, recall.Exact} {
		list := regexp.MustCompile(os.Getenv("ENGRAM_EVAL_LIST") + "$^")
		if l := os.Getenv("ENGRAM_EVAL_LIST"); l != "" {
			list = regexp.MustCompile(l)
		}
		figs, err := ConvRun(ctx, convs, sets, cv, mode, recall.DefaultConfig(emb), now, func(set string, c ConvCase, r recall.Result) {
			if c.Gold != nil && list.MatchString(set) {
				t.Logf("%s: empty %s %q unheard %q below %d", mode, set, c.Text, r.Unheard, r.BelowFloor)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range sets {
			f := Sum(figs[i], nil)
			t.Logf("%-7s %-36s n %4d  @3 %5.1f  @5 %5.1f  @10 %5.1f  empty %5.1f%%", mode, s.Name, f.N, f.Any3, f.Any5, f.Any10, f.Empty)
		}
	}
}

// TestShortFloor measures hybrid mode's floor for short queries
// (recall.Floor.Short) on the conversation sets' short queries: for each
// vector gate and vector floor, recall_any@3 and @5 and the empty share
// of the short sets, and the empty share of the short queries asked of
// the other conversations. ENGRAM_EVAL=1 as for the cross-validation.
func TestShortFloor(t *testing.T) {
	if os.Getenv("ENGRAM_EVAL") == "" {
		t.Skip("set ENGRAM_EVAL=1 to measure the short-query floor")
	}
	convs, err := LoadConversations(filepath.Join(locomoRoot(), "turns"))
	if err != nil {
		t.Skip(err)
	}
	emb, err := loadModel(os.Getenv("ENGRAM_MODEL_DIR"), true)
	if err != nil {
		t.Skip(err)
	}
	all := ConvSets(convs)
	var docs []recall.Doc
	for _, c := range convs {
		docs = append(docs, c.Docs...)
	}
	ctx := context.Background()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cv, err := NewConvVectors(ctx, emb, docs, ConvTexts(all, now))
	if err != nil {
		t.Fatal(err)
	}
	var sets []ConvSet
	for _, s := range all {
		if strings.HasPrefix(s.Name, "short") {
			sets = append(sets, s)
		}
	}
	for _, gate := range []float64{0.45, 0.4, 0.35, 0.3} {
		for _, vec := range []float64{0.6, 0.5, 0.45, 0.4, 0.35, 0.3} {
			cfg := recall.DefaultConfig(emb)
			cfg.Floors = recall.DefaultFloors()
			h := cfg.Floors[recall.Hybrid]
			short := h
			short.Short = nil
			short.Vector = vec
			short.Gate = &recall.Floor{Keyword: h.Gate.Keyword, Vector: gate}
			h.Short = &short
			cfg.Floors[recall.Hybrid] = h
			figs, err := ConvRun(ctx, convs, sets, cv, recall.Hybrid, cfg, now, nil)
			if err != nil {
				t.Fatal(err)
			}
			line := fmt.Sprintf("gate %.2f vec %.2f:", gate, vec)
			for i, s := range sets {
				f := Sum(figs[i], nil)
				if strings.Contains(s.Name, "no answer") {
					line += fmt.Sprintf(" | %s empty %.1f%%", s.Name, f.Empty)
				} else {
					line += fmt.Sprintf(" | %s @3 %.1f @5 %.1f empty %.1f%%", s.Name, f.Any3, f.Any5, f.Empty)
				}
			}
			t.Log(line)
		}
	}
}

// TestConvReport prints the report's conversation section
// (ConvReport). ENGRAM_EVAL=1 as for the cross-validation.
func TestConvReport(t *testing.T) {
	if os.Getenv("ENGRAM_EVAL") == "" {
		t.Skip("set ENGRAM_EVAL=1 to measure the conversation sets")
	}
	emb, err := loadModel(os.Getenv("ENGRAM_MODEL_DIR"), true)
	if err != nil {
		t.Skip(err)
	}
	md, err := ConvReport(context.Background(), filepath.Join(locomoRoot(), "turns"), emb, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + md)
}
