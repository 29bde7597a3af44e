package hooks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/hooks"
)

// TestUserMessagesClientContext: what a client puts into the user's turn
// is not the user's words, and does not hide them. Claude Code's IDE
// extensions send the file open in the editor and the lines selected as
// text blocks of their own before the user's (<ide_opened_file>,
// <ide_selection>), and after it what it adds (<system-reminder>); Codex
// records the AGENTS.md files it loads as a user message of their own
// ("# AGENTS.md instructions for DIR" and an <INSTRUCTIONS> block). The examples are hand-written in those shapes.
func TestUserMessagesClientContext(t *testing.T) {
	tests := []struct {
		name, line string
		want       []string
	}{
		{"claude ide file", `{"type":"user","sessionId":"s","uuid":"u1","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>The user opened the file /src/app/main.go in the IDE. This may or may not be related to the current task.</ide_opened_file>"},{"type":"text","text":"From now on, run the linter before each commit."}]}}`,
			[]string{"From now on, run the linter before each commit."}},
		{"claude ide selection", `{"type":"user","sessionId":"s","uuid":"u2","message":{"role":"user","content":[{"type":"text","text":"<ide_selection>The user selected the lines 3 to 4 from /src/app/main.go:\n// always panic on a nil config\nfunc load() {}\n\nThis may or may not be related to the current task.</ide_selection>"},{"type":"text","text":"Why does this fail?"}]}}`,
			[]string{"Why does this fail?"}},
		{"claude reminder after the text", `{"type":"user","sessionId":"s","uuid":"u4","message":{"role":"user","content":[{"type":"text","text":"Carry out the plan in notes/plan.md."},{"type":"text","text":"<system-reminder>\nThe user referenced notes/plan.md.\nNever edit the generated files.\n</system-reminder>"}]}}`,
			[]string{"Carry out the plan in notes/plan.md."}},
		{"claude ide context only", `{"type":"user","sessionId":"s","uuid":"u3","message":{"role":"user","content":[{"type":"text","text":"<ide_opened_file>The user opened the file /src/x.go in the IDE.</ide_opened_file>"}]}}`,
			nil},
		{"codex agents file", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /home/u/src/shop\n\n<INSTRUCTIONS>\nAlways run mix format before you commit.\nNever edit the generated files.\n</INSTRUCTIONS>"}]}}`,
			nil},
		{"codex typed prompt", `{"type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"Always run mix format before you commit."}]}}`,
			[]string{"Always run mix format before you commit."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			if err := os.WriteFile(path, []byte(tc.line+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := hooks.UserMessages(path, "s")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) == 0 {
				got = nil
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("user messages = %q, want %q", got, tc.want)
			}
			for _, m := range got {
				for _, st := range hooks.Statements(m) {
					if strings.Contains(st.Text, "panic") || strings.Contains(st.Text, "generated") {
						t.Errorf("a statement from the client's context: %q", st.Text)
					}
				}
			}
		})
	}
}

// TestCaptureMerged: a statement a later session repeats is merged into
// the memory the first stored, and the capture says so (Captured.Merged),
// which TestPublicTranscripts counts apart from the stored ones.
func TestCaptureMerged(t *testing.T) {
	e := start(t)
	const line = `{"type":"user","sessionId":"S","uuid":"u1","message":{"role":"user","content":"From now on, use pnpm instead of npm in this repo."}}` + "\n"
	var ids []string
	for i, session := range []string{"merge-1", "merge-2"} {
		path := writeTranscript(t, session, line)
		out, _ := run(t, e.client(), hooks.PreCompact, hooks.Input{SessionID: session, TranscriptPath: path}, hooks.Options{Capture: true, StateDir: t.TempDir()})
		if len(out.Capture) != 1 || out.Capture[0].Status != hooks.StatusOK || out.Capture[0].Merged != (i == 1) {
			t.Fatalf("capture %d = %+v, want one ok, merged: %v", i, out.Capture, i == 1)
		}
		ids = append(ids, out.Capture[0].ID)
	}
	if ids[0] != ids[1] || len(e.hookMemories()) != 1 {
		t.Errorf("ids %v, %d hook memories; want the repeat merged into the first", ids, len(e.hookMemories()))
	}
}

// TestCaptureBeyondTheCapWaits: a capture stores at most ten statements;
// the rest are stored by the next capture of the same session, not
// skipped with the part of the transcript already read.
func TestCaptureBeyondTheCapWaits(t *testing.T) {
	e := start(t)
	var b strings.Builder
	for i := range 14 {
		fmt.Fprintf(&b, `{"type":"user","sessionId":"S","uuid":"u%d","message":{"role":"user","content":"Remember that service %d of the billing stack listens on port %d."}}`+"\n", i, i, 9100+i)
	}
	path := writeTranscript(t, "cap", b.String())
	state := t.TempDir()
	var got []int
	for _, ev := range []hooks.Event{hooks.PreCompact, hooks.SessionEnd, hooks.SessionEnd} {
		out, _ := run(t, e.client(), ev, hooks.Input{SessionID: "cap", TranscriptPath: path}, hooks.Options{Capture: true, StateDir: state})
		got = append(got, len(out.Capture))
	}
	if want := []int{10, 4, 0}; !slices.Equal(got, want) || len(e.hookMemories()) != 14 {
		t.Fatalf("captures stored %v statements, %d hook memories; want %v and all 14", got, len(e.hookMemories()), want)
	}
}
