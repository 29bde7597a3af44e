package ui

import (
	"testing"

	"fyne.io/fyne/v2"

	"github.com/engram-app/engram/app"
)

func TestRecallText(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   app.RecallStatus
		want string
	}{
		{"built in", app.RecallStatus{Semantic: true, Model: "use-lite-v2", Location: "embedded", Verified: true}, "Recall by meaning: use-lite-v2, built in, verified"},
		{"directory", app.RecallStatus{Semantic: true, Model: "use-lite-v2", Location: "/opt/models/use-lite", Verified: true}, "Recall by meaning: use-lite-v2, from /opt/models/use-lite, verified"},
		{"server", app.RecallStatus{Semantic: true, Model: "nomic-embed-text", Location: "http://127.0.0.1:11434/v1"}, "Recall by meaning: nomic-embed-text, served by http://127.0.0.1:11434/v1"},
		{"keywords", app.RecallStatus{KeywordOnly: "the embedding model is not installed"}, "Keyword recall only: the embedding model is not installed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := recallText(tc.st); got != tc.want {
				t.Errorf("recallText(%+v) = %q, want %q", tc.st, got, tc.want)
			}
		})
	}
}

// TestSettingsShowsRecallModel: the Recall group says how recall works.
func TestSettingsShowsRecallModel(t *testing.T) {
	u, _ := openUI(t)
	st := u.h.Service().RecallStatus()
	if st.Semantic {
		t.Fatal("the test vault has a model; want keyword recall")
	}
	want := "Keyword recall only: " + st.KeywordOnly
	if !hasLabel(u.settings.content, want) {
		t.Fatalf("Settings does not say %q", want)
	}
}

// TestSettingsGroupsShareOneLabelColumn: the fields of every group start
// at the same x, so the groups' label columns line up.
func TestSettingsGroupsShareOneLabelColumn(t *testing.T) {
	u, _ := openUI(t)
	u.tabs.SelectIndex(4)
	u.win.Resize(fyne.NewSize(1100, 720))
	s := u.settings
	want, _ := posIn(s.content, s.autoLock)
	for name, e := range map[string]fyne.CanvasObject{"Agent API address": s.addr, "Episodic memories live": s.episodic, "Embedder model": s.embedderModel, "Backup folder": s.backupDir} {
		got, ok := posIn(s.content, e)
		if !ok {
			t.Fatalf("no field %q in Settings", name)
		}
		if got.X != want.X {
			t.Errorf("the field %q starts at x %v, Auto-lock's at %v", name, got.X, want.X)
		}
	}
}

// posIn is target's position inside root.
func posIn(root, target fyne.CanvasObject) (fyne.Position, bool) {
	if root == target {
		return fyne.Position{}, true
	}
	for _, k := range children(root) {
		if p, ok := posIn(k, target); ok {
			return p.Add(k.Position()), true
		}
	}
	return fyne.Position{}, false
}
