package hooks_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/hooks"
)

// TestPublicTranscripts runs the capture a client's PreCompact and
// SessionEnd hooks make on real transcripts (not in the repository, for
// their licences: app/hooks/testdata/public-transcripts.md lists where
// they come from) through a real Engram, and tabulates per transcript and
// in total the user messages read, the statements found and what the
// admission did with them. ENGRAM_TRANSCRIPTS names a directory with one
// folder per repository (one Engram each, as one user has one) holding
// that repository's transcripts (*.jsonl: Claude Code sessions, Codex
// rollouts, Gemini CLI chats). ENGRAM_TRANSCRIPTS_OUT, when set, receives
// every statement found with its outcome, to be read and judged.
//
//	ENGRAM_TRANSCRIPTS=/tmp/dir go test ./app/hooks -run TestPublicTranscripts -v
func TestPublicTranscripts(t *testing.T) {
	root := os.Getenv("ENGRAM_TRANSCRIPTS")
	if root == "" {
		t.Skip("ENGRAM_TRANSCRIPTS names no directory of transcripts")
	}
	repos, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var dump bytes.Buffer
	var total tally
	sessions, repoCount := 0, 0
	for _, r := range repos {
		if !r.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, r.Name(), "*.jsonl"))
		sort.Strings(files)
		if len(files) == 0 {
			continue
		}
		repoCount++
		e := start(t)
		for _, path := range files {
			sessions++
			session := sessionOf(path)
			msgs, rerr := hooks.UserMessages(path, session)
			var n tally
			n.messages = len(msgs)
			for _, m := range msgs {
				n.found += len(hooks.Statements(m))
			}
			var log bytes.Buffer
			opts := hooks.Options{Capture: true, StateDir: t.TempDir(), Log: &log}
			in := hooks.Input{SessionID: session, TranscriptPath: path, HookEventName: "PreCompact", Trigger: "auto"}
			out, _ := run(t, e.client(), hooks.PreCompact, in, opts)
			in.HookEventName, in.Trigger, in.Reason = "SessionEnd", "", "prompt_input_exit"
			out2, _ := run(t, e.client(), hooks.SessionEnd, in, opts)
			captured := append(out.Capture, out2.Capture...)
			for _, c := range captured {
				n.count(c)
				fmt.Fprintf(&dump, "%s\t%s\t%s\t%s\t%q\n", r.Name(), filepath.Base(path), c.Why, outcome(c), c.Text)
			}
			n.skipped = n.found - len(captured)
			if rerr != nil {
				fmt.Fprintf(&dump, "%s\t%s\tread: %v\n", r.Name(), filepath.Base(path), rerr)
			}
			t.Logf("%-28s %-44s %s", r.Name(), trim(filepath.Base(path), 44), n)
			total.add(n)
		}
	}
	t.Logf("TOTAL: %d sessions from %d repositories: %s", sessions, repoCount, total)
	if out := os.Getenv("ENGRAM_TRANSCRIPTS_OUT"); out != "" {
		if err := os.WriteFile(out, dump.Bytes(), 0o600); err != nil {
			t.Error(err)
		}
	}
	if sessions == 0 {
		t.Fatalf("no transcripts under %s", root)
	}
}

// sessionOf is the session id a client names for the transcript: a
// Claude Code session file is named after it; a Codex rollout's lines name
// none, so any id reads them all.
func sessionOf(path string) string {
	return strings.TrimSuffix(filepath.Base(path), ".jsonl")
}

func outcome(c hooks.Captured) string {
	var s string
	switch {
	case c.Status == hooks.StatusOK && c.Merged:
		s = "merged"
	case c.Status == hooks.StatusOK:
		s = "stored"
	case c.Status == hooks.StatusQuarantined || c.Status == hooks.StatusConfirmationRequired:
		s = "queued"
	default:
		s = "refused"
	}
	if c.Redacted {
		s += "+redacted"
	}
	return s
}

type tally struct {
	messages, found, stored, merged, queued, redacted, refused, skipped int
}

func (n *tally) count(c hooks.Captured) {
	switch o := outcome(c); {
	case strings.HasPrefix(o, "stored"):
		n.stored++
	case strings.HasPrefix(o, "merged"):
		n.merged++
	case strings.HasPrefix(o, "queued"):
		n.queued++
	default:
		n.refused++
	}
	if c.Redacted {
		n.redacted++
	}
}

func (n *tally) add(m tally) {
	n.messages += m.messages
	n.found += m.found
	n.stored += m.stored
	n.merged += m.merged
	n.queued += m.queued
	n.redacted += m.redacted
	n.refused += m.refused
	n.skipped += m.skipped
}

func (n tally) String() string {
	return fmt.Sprintf("messages %d, statements %d: stored %d, merged %d, queued %d, redacted %d, refused %d, skipped %d",
		n.messages, n.found, n.stored, n.merged, n.queued, n.redacted, n.refused, n.skipped)
}

func trim(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}
