package ui

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
)

// memSecrets is a keyring in memory.
type memSecrets struct {
	mu sync.Mutex
	m  map[string]string
}

func (s *memSecrets) Get(name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.m[name]
	if !ok {
		return "", app.ErrNoKey
	}
	return v, nil
}

func (s *memSecrets) Set(name, secret string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[name] = secret
	return nil
}

func (s *memSecrets) Delete(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, name)
	return nil
}

// openConnect opens Connect a client… and selects the client named name.
func openConnect(t *testing.T, u *UI, name string) fyne.CanvasObject {
	t.Helper()
	test.Tap(button(t, u.agents.content, "Connect a client…"))
	dlg := u.win.Canvas().Overlays().Top()
	kl, ok := find(dlg, func(*keyList) bool { return true })
	list := &kl.List
	if !ok {
		t.Fatal("no list of clients in the dialog")
	}
	for i := range list.Length() {
		if strings.HasPrefix(rowText(list, i), name) {
			list.Select(i)
			return dlg
		}
	}
	t.Fatalf("%s is not among the clients", name)
	return nil
}

// rowText is the text of a list row: its labels, joined.
func rowText(l *widget.List, i int) string {
	o := l.CreateItem()
	l.UpdateItem(i, o)
	return strings.Join(textsOf(o), " ")
}

// TestConnectClient connects Claude Code from the Agents screen into a
// home of its own: the dry run shows the agent and the diff, Connect
// registers the agent and writes ~/.claude.json, the token is never
// shown, and Disconnect gives the file back and revokes the agent.
func TestConnectClient(t *testing.T) {
	home := t.TempDir()
	orig := "{\n  \"theme\": \"dark\",\n  \"mcpServers\": {}\n}\n"
	file := filepath.Join(home, ".claude.json")
	if err := os.WriteFile(file, []byte(orig), 0o600); err != nil {
		t.Fatal(err)
	}
	u, _ := openUIHome(t, home)
	keys := &memSecrets{m: map[string]string{}}
	u.secrets = keys

	dlg := openConnect(t, u, "Claude Code")
	if c, ok := u.win.Canvas().Focused().(*defaultButton); !ok || c.Text != "Cancel" {
		t.Fatal("Cancel is not the focused default of Connect a client")
	}
	if m, win := dlg.MinSize(), u.win.Canvas().Size(); m.Width > win.Width || m.Height > win.Height {
		t.Errorf("Connect a client needs %v, more than the window's %v", m, win)
	}
	text := boxText(dlg)
	for _, want := range []string{"Claude Code is installed and not connected", "would add agent claude-code", "Connect would update " + file, `"engram": {`, "--agent", "claude-code", "hook SessionStart --agent claude-code"} {
		if !strings.Contains(text, want) {
			t.Errorf("the dry run does not say %q:\n%s", want, text)
		}
	}
	if b, _ := os.ReadFile(file); string(b) != orig {
		t.Fatal("the dry run changed the client's file")
	}
	if r := u.h.Service().Agents(t.Context(), u.h.Operator()); len(r.Agents) != 0 {
		t.Fatalf("the dry run registered %v", r.Agents)
	}
	if !button(t, dlg, "Disconnect…").Disabled() {
		t.Error("Disconnect is offered for a client that is not connected")
	}

	// A narrower grant for the new agent: it reads public only.
	for _, p := range []string{"internal", "sensitive"} {
		box, ok := find(dlg, func(c *keyCheck) bool { return c.Text == p })
		if !ok {
			t.Fatalf("no %q box among the grants", p)
		}
		box.SetChecked(false)
	}
	test.Tap(button(t, dlg, "Connect"))

	b, _ := os.ReadFile(file)
	if !strings.Contains(string(b), `"--agent"`) || !strings.Contains(string(b), `"claude-code"`) || !strings.Contains(string(b), `"theme": "dark"`) {
		t.Fatalf("~/.claude.json after Connect:\n%s", b)
	}
	r := u.h.Service().Agents(t.Context(), u.h.Operator())
	if len(r.Agents) != 1 || r.Agents[0].Name != "claude-code" || r.Agents[0].Status != app.AgentActive || !slices.Equal(r.Agents[0].Read, []app.Partition{"public"}) {
		t.Fatalf("agents after Connect: %+v", r.Agents)
	}
	var token string
	for k, v := range keys.m {
		if strings.Contains(k, "claude-code") {
			token = v
		}
	}
	if token == "" || strings.Contains(string(b), token) {
		t.Fatal("the token is not in the keyring, or it is in the client's file")
	}
	done := u.win.Canvas().Overlays().Top()
	if !hasLabel(done, "Restart Claude Code to use Engram.") {
		t.Fatalf("after Connect the dialog says:\n%s", boxText(done))
	}
	for _, o := range append(u.win.Canvas().Overlays().List(), u.win.Content()) {
		if strings.Contains(boxText(o), token) {
			t.Fatal("the token is shown")
		}
	}
	u.win.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(u.win.Canvas().Overlays().List()) != 0 {
		t.Fatal("Escape does not close the confirmation")
	}

	// Connected now: Disconnect asks first, then restores the file.
	dlg = openConnect(t, u, "Claude Code")
	if text := boxText(dlg); !strings.Contains(text, "Disconnect would restore it as it was before Engram connected and revoke agent claude-code") || !strings.Contains(text, `-    "engram": {`) {
		t.Fatalf("a connected client's dialog does not show what Disconnect would do:\n%s", text)
	}
	if !strings.Contains(boxText(dlg), "Claude Code is connected as agent claude-code") {
		t.Fatalf("the dialog does not say Claude Code is connected:\n%s", boxText(dlg))
	}
	test.Tap(button(t, dlg, "Disconnect…"))
	ask := u.win.Canvas().Overlays().Top()
	if c, ok := u.win.Canvas().Focused().(*defaultButton); !ok || c.Text != "Keep connected" {
		t.Fatal("Keep connected is not the default of the disconnect question")
	}
	test.Tap(button(t, ask, "Disconnect"))
	if b, _ := os.ReadFile(file); string(b) != orig {
		t.Fatalf("Disconnect left ~/.claude.json as\n%s\nwant\n%s", b, orig)
	}
	r = u.h.Service().Agents(t.Context(), u.h.Operator())
	if len(r.Agents) != 1 || r.Agents[0].Status != app.AgentRevoked {
		t.Fatalf("agents after Disconnect: %+v", r.Agents)
	}
	if len(keys.m) != 0 {
		t.Fatal("the token is still kept after Disconnect")
	}
	if !hasLabel(u.win.Canvas().Overlays().Top(), "Restored "+file) {
		t.Fatalf("after Disconnect the dialog says:\n%s", boxText(u.win.Canvas().Overlays().Top()))
	}
}

// TestConnectClientUnreadableFile shows why a file Engram cannot read
// is left alone, in the dialog, and offers no Connect.
func TestConnectClientUnreadableFile(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, ".claude.json")
	if err := os.WriteFile(file, []byte("{ not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	u, _ := openUIHome(t, home)
	u.secrets = &memSecrets{m: map[string]string{}}
	dlg := openConnect(t, u, "Claude Code")
	if !strings.Contains(boxText(dlg), "Engram changed nothing") || !button(t, dlg, "Connect").Disabled() {
		t.Fatalf("an unreadable file: the dialog says\n%s", boxText(dlg))
	}
	u.win.Canvas().Focused().TypedKey(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if len(u.win.Canvas().Overlays().List()) != 0 {
		t.Fatal("Escape does not close Connect a client")
	}
	if b, _ := os.ReadFile(file); string(b) != "{ not json" {
		t.Fatal("the unreadable file was changed")
	}
}

// TestConnectClientNameAndEnter: a name typed for the agent shows in the
// diff, and Enter in that field connects.
func TestConnectClientNameAndEnter(t *testing.T) {
	home := t.TempDir()
	u, _ := openUIHome(t, home)
	u.secrets = &memSecrets{m: map[string]string{}}
	dlg := openConnect(t, u, "Cursor")
	name, ok := find(dlg, func(e *shortcutEntry) bool { return true })
	if !ok {
		t.Fatal("no agent name field")
	}
	test.Type(name, "cursor-work")
	if text := boxText(dlg); !strings.Contains(text, "Connect would create") || !strings.Contains(text, "cursor-work") {
		t.Fatalf("the dry run does not follow the name:\n%s", text)
	}
	name.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	b, err := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if err != nil || !strings.Contains(string(b), `"cursor-work"`) {
		t.Fatalf("Enter did not connect Cursor as cursor-work: %v\n%s", err, b)
	}
	if !hasLabel(u.win.Canvas().Overlays().Top(), "Restart Cursor to use Engram.") {
		t.Fatal("no restart notice after Enter")
	}
}

// TestConnectClientWithoutKeyring: with no keyring the token goes to a
// 0600 file in the data directory, and the confirmation says where.
func TestConnectClientWithoutKeyring(t *testing.T) {
	home := t.TempDir()
	u, cfg := openUIHome(t, home)
	u.secrets = noSecrets{"ENGRAM_NO_KEYRING is set"}
	dlg := openConnect(t, u, "Gemini CLI")
	test.Tap(button(t, dlg, "Connect"))
	done := boxText(u.win.Canvas().Overlays().Top())
	if !strings.Contains(done, "ENGRAM_NO_KEYRING is set") || !strings.Contains(done, filepath.Join(cfg.DataDir, "agents")) {
		t.Fatalf("the confirmation does not say where the token is:\n%s", done)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini", "settings.json")); err != nil {
		t.Fatalf("Gemini CLI's settings were not written: %v", err)
	}
}

// openUIHome opens the UI with home as the user's home directory, where
// the clients' configuration files are looked for.
func openUIHome(t *testing.T, home string) (*UI, host.Config) {
	t.Helper()
	cfg := testConfig(t)
	cfg.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	u, _ := openUIWith(t, cfg)
	return u, cfg
}

// TestConnectSwitchesCaptureOff: the Connect dialog offers the client's
// lifecycle hooks with capture (connect's default); unticking capture on
// a connected client shows the change to its hooks and, connected again,
// its hooks run with --no-capture; the dialog opened again shows the
// choice the file holds. A client without hooks offers none.
func TestConnectSwitchesCaptureOff(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(home, ".claude", "settings.json")
	u, _ := openUIHome(t, home)
	u.secrets = &memSecrets{m: map[string]string{}}
	checkOf := func(dlg fyne.CanvasObject, label string) *keyCheck {
		t.Helper()
		c, ok := find(dlg, func(c *keyCheck) bool { return c.Text == label })
		if !ok {
			t.Fatalf("no %q box in Connect a client", label)
		}
		return c
	}
	const hooksBox, captureBox = "Briefing at start, recall with each prompt", "Capture what I say is meant to last"

	dlg := openConnect(t, u, "Claude Code")
	if h, c := checkOf(dlg, hooksBox), checkOf(dlg, captureBox); !h.Checked || !c.Checked || c.Disabled() {
		t.Fatalf("a client not connected: hooks %v, capture %v (disabled %v); want both on", h.Checked, c.Checked, c.Disabled())
	}
	test.Tap(button(t, dlg, "Connect"))
	if done := boxText(u.win.Canvas().Overlays().Top()); !strings.Contains(done, "Created "+settings+" with Engram's lifecycle hooks.") {
		t.Errorf("the connected note does not name the hooks file:\n%s", done)
	}
	b, _ := os.ReadFile(settings)
	if !strings.Contains(string(b), "UserPromptSubmit") || strings.Contains(string(b), "--no-capture") {
		t.Fatalf("hooks after Connect:\n%s", b)
	}
	for u.win.Canvas().Overlays().Top() != nil {
		u.win.Canvas().Overlays().Top().Hide()
	}

	dlg = openConnect(t, u, "Claude Code")
	checkOf(dlg, captureBox).SetChecked(false)
	if text := boxText(dlg); !strings.Contains(text, "(lifecycle hooks)") || !strings.Contains(text, "--no-capture") {
		t.Fatalf("unticking capture does not show the change to the hooks:\n%s", text)
	}
	test.Tap(button(t, dlg, "Connect"))
	b, _ = os.ReadFile(settings)
	if n := strings.Count(string(b), "--no-capture"); n == 0 || n != strings.Count(string(b), "--agent claude-code") {
		t.Fatalf("hooks after switching capture off (%d with --no-capture):\n%s", n, b)
	}
	for u.win.Canvas().Overlays().Top() != nil {
		u.win.Canvas().Overlays().Top().Hide()
	}

	dlg = openConnect(t, u, "Claude Code")
	if h, c := checkOf(dlg, hooksBox), checkOf(dlg, captureBox); !h.Checked || c.Checked {
		t.Errorf("opened again: hooks %v, capture %v; want hooks on, capture off as the file holds", h.Checked, c.Checked)
	}
	for u.win.Canvas().Overlays().Top() != nil {
		u.win.Canvas().Overlays().Top().Hide()
	}
	dlg = openConnect(t, u, "Claude Desktop")
	if h := checkOf(dlg, hooksBox); h.Checked || !h.Disabled() {
		t.Errorf("Claude Desktop (no hooks): hooks box checked %v, disabled %v; want off and disabled", h.Checked, h.Disabled())
	}
}
