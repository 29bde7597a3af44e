package connect_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/connect"
)

// hookClients are the clients whose documentation defines hooks.
func hookClients(t *testing.T) []connect.Client {
	var out []connect.Client
	for _, c := range connect.Clients {
		if c.Hooks != nil {
			out = append(out, c)
		}
	}
	if len(out) != 6 {
		t.Fatalf("%d clients with hooks, want claude-code, cursor, vscode, windsurf, codex and gemini", len(out))
	}
	return out
}

// checkHooks parses out as the client would and checks that every event
// Engram installs runs `engram hook EVENT --agent agent` once, with the
// event's matcher, and that no token is in the file.
func checkHooks(t *testing.T, c connect.Client, out []byte, agent string) {
	t.Helper()
	type command struct {
		Name    string `json:"name"`
		Type    string `json:"type"`
		Command string `json:"command"`
		Timeout int    `json:"timeout"`
	}
	var doc struct {
		Version int `json:"version"`
		Hooks   map[string][]struct {
			Matcher string    `json:"matcher"`
			Hooks   []command `json:"hooks"`
			command
		} `json:"hooks"`
	}
	if err := json.Unmarshal(jsonc(out), &doc); err != nil {
		t.Fatalf("%s: the hooks file is not JSON: %v\n%s", c.ID, err, out)
	}
	if doc.Version != c.Hooks.Version {
		t.Errorf("%s: version %d, want %d", c.ID, doc.Version, c.Hooks.Version)
	}
	client := ""
	if c.Hooks.Client != "" {
		client = " --client " + c.Hooks.Client
	}
	for _, ev := range c.Hooks.Events {
		n := 0
		want := engramBin + " hook " + ev.Name + client + " --agent " + agent
		for _, g := range doc.Hooks[ev.Name] {
			if c.Hooks.Flat {
				if strings.Contains(g.Command, engramBin+" hook ") {
					n++
					if g.Command != want || len(g.Hooks) != 0 || g.Matcher != "" {
						t.Errorf("%s %s: %+v; want the command %q alone", c.ID, ev.Name, g, want)
					}
					if c.Hooks.Typed && (g.Type != "command" || g.Timeout != ev.Timeout) {
						t.Errorf("%s %s: type %q, timeout %d; want command, %d", c.ID, ev.Name, g.Type, g.Timeout, ev.Timeout)
					}
				}
				continue
			}
			for _, h := range g.Hooks {
				if strings.Contains(h.Command, engramBin+" hook ") {
					n++
					if h.Type != "command" || h.Command != want || g.Matcher != ev.Matcher || h.Timeout != ev.Timeout || h.Name != c.Hooks.Name {
						t.Errorf("%s %s: %+v in group with matcher %q; want %q, matcher %q", c.ID, ev.Name, h, g.Matcher, want, ev.Matcher)
					}
				}
			}
		}
		if n != 1 {
			t.Errorf("%s: %d engram hooks for %s, want 1", c.ID, n, ev.Name)
		}
	}
	if bytes.Contains(out, []byte("engram_")) || bytes.Contains(out, []byte("ENGRAM_TOKEN")) {
		t.Errorf("%s: a token in the hooks file:\n%s", c.ID, out)
	}
}

// TestHooksGolden checks, for every client with hooks, a fresh install,
// an install beside other hooks of the same events, a second run and a
// removal, on the bytes (testdata/CLIENT/hooks).
func TestHooksGolden(t *testing.T) {
	for _, c := range hookClients(t) {
		t.Run(c.ID, func(t *testing.T) {
			dir := filepath.Join("testdata", c.ID, "hooks")
			args := []string{"--agent", c.ID}
			if c.Hooks.Client != "" {
				args = append([]string{"--client", c.Hooks.Client}, args...)
			}
			e := connect.HookEntry{Command: engramBin, Args: args}
			fresh, err := c.Hooks.Edit(nil, e)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "fresh.golden"), fresh)
			checkHooks(t, c, fresh, c.ID)

			input, err := os.ReadFile(filepath.Join(dir, "existing.input"))
			if err != nil {
				t.Fatal(err)
			}
			installed, err := c.Hooks.Edit(input, e)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "existing.golden"), installed)
			checkHooks(t, c, installed, c.ID)
			for _, keep := range []string{"cat ~/notes/today.md", "notify-send", "check-command", "scan_prompt.py", "statusLine", "// user settings", `"show_output": true`, "github-mcp", `"version": 1`} {
				if bytes.Contains(input, []byte(keep)) && !bytes.Contains(installed, []byte(keep)) {
					t.Errorf("the install lost %q", keep)
				}
			}

			for name, src := range map[string][]byte{"fresh": fresh, "existing": installed} {
				again, err := c.Hooks.Edit(src, e)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(again, src) {
					t.Errorf("second install into %s changed the file:\n%s", name, again)
				}
			}
			// Other arguments replace Engram's hooks in place.
			other := connect.HookEntry{Command: engramBin, Args: append(args, "--no-capture")}
			changed, err := c.Hooks.Edit(installed, other)
			if err != nil {
				t.Fatal(err)
			}
			if n := bytes.Count(changed, []byte("--no-capture")); n != len(c.Hooks.Events) {
				t.Errorf("--no-capture in %d hooks, want %d:\n%s", n, len(c.Hooks.Events), changed)
			}

			for name, tc := range map[string]struct{ src, want []byte }{"existing": {installed, input}, "changed": {changed, input}} {
				stripped, had, err := c.Hooks.Strip(tc.src)
				if err != nil || !had {
					t.Fatalf("%s: Strip = %v, %v", name, had, err)
				}
				if !bytes.Equal(stripped, tc.want) {
					t.Errorf("%s: removal did not give back the original:\n--- got\n%s\n--- want\n%s", name, stripped, tc.want)
				}
			}
			if _, had, _ := c.Hooks.Strip(input); had {
				t.Error("Strip found Engram's hooks in a file without them")
			}
		})
	}
}

// TestHooksNotOurs: a group that runs engram among other commands, or a
// program merely named like engram, is the user's and stays.
func TestHooksNotOurs(t *testing.T) {
	c, _ := connect.Find("claude-code")
	src := []byte(`{"hooks": {"Stop": [
  {"hooks": [{"type": "command", "command": "engram hook Stop --agent me"}, {"type": "command", "command": "say done"}]},
  {"hooks": [{"type": "command", "command": "/opt/engram-tools/bin/report hook Stop"}]},
  {"hooks": [{"type": "command", "command": "echo engram hook Stop"}]}
]}}
`)
	out, had, err := c.Hooks.Strip(src)
	if err != nil || had || !bytes.Equal(out, src) {
		t.Errorf("Strip = %v, %v:\n%s", had, err, out)
	}
	for _, bad := range []string{`{"hooks": []}`, `{"hooks": {"Stop": {}}}`, `{"hooks": {"Stop": [}}`} {
		if _, err := c.Hooks.Edit([]byte(bad), connect.HookEntry{Command: engramBin}); err == nil {
			t.Errorf("Edit(%s) succeeded", bad)
		}
	}
}

// TestHooksFlow connects and disconnects Claude Code through a real
// service: the hooks file gets a backup and comes back byte for byte,
// with the hooks installed under other arguments than the removal knows;
// --no-hooks leaves the file alone; a dry run writes nothing.
func TestHooksFlow(t *testing.T) {
	svc := newService(t)
	reg := connect.ForService(context.Background(), svc, operator)
	home := t.TempDir()
	env := testEnv(home)
	tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
	c, _ := connect.Find("claude-code")
	path := c.Hooks.Path(env)
	if path != filepath.Join(home, ".claude", "settings.json") {
		t.Fatalf("hooks path = %s", path)
	}
	input, _ := os.ReadFile(filepath.Join("testdata", "claude-code", "hooks", "existing.input"))
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, input, 0o640); err != nil {
		t.Fatal(err)
	}
	req := connect.Request{Client: c, Env: env, Command: engramBin, HookArgs: []string{"--project", "/src/falcon=falcon"}}

	noHooks := req
	noHooks.NoHooks, noHooks.DryRun = true, true
	res, err := connect.Connect(reg, tk, noHooks)
	if err != nil || res.HookPlan.Changes() {
		t.Fatalf("--no-hooks dry run: %+v, %v", res.HookPlan, err)
	}
	dry := req
	dry.DryRun = true
	res, err = connect.Connect(reg, tk, dry)
	if err != nil || res.HookPlan.Action != connect.Update || !strings.Contains(res.HookPlan.Diff(), "+            \"command\": \""+engramBin+" hook SessionStart --agent claude-code --project /src/falcon=falcon\",") {
		t.Fatalf("dry run: %v\n%s", err, res.HookPlan.Diff())
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, input) {
		t.Fatal("a dry run changed the hooks file")
	}

	if res, err = connect.Connect(reg, tk, req); err != nil || res.HookPlan.Action != connect.Update {
		t.Fatalf("Connect: %+v, %v", res.HookPlan, err)
	}
	installed, _ := os.ReadFile(path)
	backup, _ := os.ReadFile(path + connect.BackupSuffix)
	fi, _ := os.Stat(path)
	if !bytes.Equal(backup, input) || fi.Mode().Perm() != 0o640 || !bytes.Contains(installed, []byte("--project /src/falcon=falcon")) {
		t.Errorf("after Connect: mode %v, backup equal %v\n%s", fi.Mode().Perm(), bytes.Equal(backup, input), installed)
	}
	if res, err = connect.Connect(reg, tk, req); err != nil || res.HookPlan.Changes() || res.Plan.Changes() {
		t.Errorf("second Connect changes %+v / %+v, %v", res.Plan.Action, res.HookPlan.Action, err)
	}

	plain := req
	plain.HookArgs = nil
	if res, err = connect.Disconnect(reg, tk, plain); err != nil || res.HookPlan.Action != connect.Restore {
		t.Fatalf("Disconnect: %+v, %v", res.HookPlan.Action, err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, input) {
		t.Errorf("the hooks file did not come back byte for byte:\n%s", now)
	}
	if _, err := os.Stat(path + connect.BackupSuffix); err == nil {
		t.Error("the backup stayed")
	}
}

// TestHooksProgram: with engram-hook beside engram the hooks run it
// without the "hook" word; switching between the two replaces Engram's
// hooks in place, and either is taken out again.
func TestHooksProgram(t *testing.T) {
	c, _ := connect.Find("claude-code")
	small := connect.HookEntry{Command: "/usr/local/bin/engram-hook", Args: []string{"--agent", "claude-code"}, Env: map[string]string{"ENGRAM_HOME": "/home/u/my vault"}}
	out, err := c.Hooks.Edit(nil, small)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"command": "ENGRAM_HOME='/home/u/my vault' /usr/local/bin/engram-hook SessionStart --agent claude-code"`)) {
		t.Errorf("engram-hook install:\n%s", out)
	}
	big := connect.HookEntry{Command: engramBin, Args: []string{"--agent", "claude-code"}}
	switched, err := c.Hooks.Edit(out, big)
	if err != nil {
		t.Fatal(err)
	}
	checkHooks(t, c, switched, "claude-code")
	if bytes.Contains(switched, []byte("engram-hook")) {
		t.Errorf("switching left engram-hook behind:\n%s", switched)
	}
	for _, src := range [][]byte{out, switched} {
		if back, had, err := c.Hooks.Strip(src); err != nil || !had || !bytes.Equal(bytes.TrimSpace(back), []byte("{}")) {
			t.Errorf("Strip = %q, %v, %v", back, had, err)
		}
	}
}

// TestHooksOtherName: an engram installed under another name is known by
// its program, so that a second install changes nothing and a removal
// finds its hooks.
func TestHooksOtherName(t *testing.T) {
	c, _ := connect.Find("claude-code")
	e := connect.HookEntry{Command: "/opt/bin/memvault", Args: []string{"--agent", "claude-code"}}
	out, err := c.Hooks.Edit(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := c.Hooks.Edit(out, e); err != nil || !bytes.Equal(again, out) {
		t.Errorf("second install under another name:\n%s", again)
	}
	svc := newService(t)
	reg := connect.ForService(context.Background(), svc, operator)
	home := t.TempDir()
	env := testEnv(home)
	tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
	req := connect.Request{Client: c, Env: env, Command: "/opt/bin/memvault"}
	if _, err := connect.Connect(reg, tk, req); err != nil {
		t.Fatal(err)
	}
	if res, err := connect.Connect(reg, tk, req); err != nil || res.HookPlan.Changes() {
		t.Errorf("second Connect: %v, %v", res.HookPlan.Action, err)
	}
	if res, err := connect.Disconnect(reg, tk, req); err != nil || res.HookPlan.Action != connect.Delete {
		t.Errorf("Disconnect: %v, %v", res.HookPlan.Action, err)
	}
	if _, err := os.Stat(c.Hooks.Path(env)); err == nil {
		t.Error("the hooks file Engram created stayed")
	}
}

// FuzzHooksEdit feeds any bytes as a hooks file: Edit either refuses them
// or gives JSON that holds Engram's hooks once per event, that a second
// Edit leaves alone, and that Strip takes them out of again, leaving what
// was not Engram's.
func FuzzHooksEdit(f *testing.F) {
	for _, id := range []string{"claude-code", "codex"} {
		if b, err := os.ReadFile(filepath.Join("testdata", id, "hooks", "existing.input")); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"hooks": {"Stop": []}}`))
	f.Add([]byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "engram hook Stop"}]}, 1, "x"]}}`))
	f.Add([]byte("// c\n{\"a\": [1,2,],}\n"))
	c, _ := connect.Find("claude-code")
	e := connect.HookEntry{Command: engramBin, Args: []string{"--agent", "fuzz"}, Env: map[string]string{"ENGRAM_HOME": "/h"}}
	f.Fuzz(func(t *testing.T, src []byte) {
		before, _, serr := c.Hooks.Strip(src)
		out, err := c.Hooks.Edit(src, e)
		if err != nil {
			return
		}
		var doc map[string]any
		if err := json.Unmarshal(jsonc(out), &doc); err != nil {
			t.Fatalf("Edit gave a file that is not JSON: %v\n%s", err, out)
		}
		if again, err := c.Hooks.Edit(out, e); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("a second Edit changed the file (%v):\n%s\n->\n%s", err, out, again)
		}
		stripped, had, err := c.Hooks.Strip(out)
		if err != nil || !had {
			t.Fatalf("Strip after Edit = %v, %v\n%s", had, err, out)
		}
		if _, still, _ := c.Hooks.Strip(stripped); still {
			t.Fatalf("Strip left some of Engram's hooks:\n%s", stripped)
		}
		if serr == nil {
			var a, b any
			json.Unmarshal(jsonc(before), &a)
			json.Unmarshal(jsonc(stripped), &b)
			if a != nil && fmt.Sprint(a) != fmt.Sprint(b) && !emptyHooks(a, b) { // nil: nothing but comments, which Edit makes an object
				t.Fatalf("Strip(Edit(src)) means %v, Strip(src) %v", b, a)
			}
		}
	})
}

// emptyHooks allows the one difference Strip makes on purpose: an event's
// list (or the hooks object) left empty goes.
func emptyHooks(a, b any) bool {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	if am == nil || bm == nil {
		return false
	}
	ah, _ := am["hooks"].(map[string]any)
	for k, v := range ah {
		if l, ok := v.([]any); ok && len(l) == 0 {
			delete(ah, k)
		}
	}
	if len(ah) == 0 {
		delete(am, "hooks")
	}
	bh, _ := bm["hooks"].(map[string]any)
	if len(bh) == 0 {
		delete(bm, "hooks")
	}
	return fmt.Sprint(am) == fmt.Sprint(bm)
}

// TestHooksSameFile connects and disconnects Gemini CLI, which keeps its
// hooks in the settings.json of its MCP entry: one plan changes both (a
// dry run shows both in one diff), one backup holds the file as it was, a
// second run changes nothing, --no-hooks would keep the entry alone, and
// the removal gives the file back byte for byte.
func TestHooksSameFile(t *testing.T) {
	svc := newService(t)
	reg := connect.ForService(context.Background(), svc, operator)
	home := t.TempDir()
	env := testEnv(home)
	tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
	c, _ := connect.Find("gemini")
	path := c.ConfigPath(env)
	if c.Hooks.Path(env) != path {
		t.Fatalf("hooks in %s, settings in %s", c.Hooks.Path(env), path)
	}
	input, _ := os.ReadFile(filepath.Join("testdata", "gemini", "hooks", "existing.input"))
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, input, 0o600); err != nil {
		t.Fatal(err)
	}
	req := connect.Request{Client: c, Env: env, Command: engramBin}

	dry := req
	dry.DryRun = true
	res, err := connect.Connect(reg, tk, dry)
	if err != nil || res.HookPlan.Changes() || res.HookPlan.Path != "" || !strings.Contains(res.Plan.Diff(), `"command": "`+engramBin+` hook BeforeAgent --client gemini --agent gemini",`) || !strings.Contains(res.Plan.Diff(), `"args": [`) {
		t.Fatalf("dry run: %v, hook plan %+v\n%s", err, res.HookPlan.Action, res.Plan.Diff())
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, input) {
		t.Fatal("a dry run changed the file")
	}
	if res, err = connect.Connect(reg, tk, req); err != nil || res.Plan.Action != connect.Update {
		t.Fatalf("Connect: %+v, %v", res.Plan.Action, err)
	}
	installed, _ := os.ReadFile(path)
	if backup, _ := os.ReadFile(path + connect.BackupSuffix); !bytes.Equal(backup, input) {
		t.Errorf("the backup is not the file as it was:\n%s", backup)
	}
	checkHooks(t, c, installed, "gemini")
	if !bytes.Contains(installed, []byte(`"mcpServers"`)) || !bytes.Contains(installed, []byte(`"mcp",`)) || !bytes.Contains(installed, []byte("// user settings")) {
		t.Errorf("installed:\n%s", installed)
	}
	if res, err = connect.Connect(reg, tk, req); err != nil || res.Plan.Changes() || res.HookPlan.Changes() {
		t.Errorf("second Connect: %v / %v, %v", res.Plan.Action, res.HookPlan.Action, err)
	}
	noHooks := req
	noHooks.NoHooks, noHooks.DryRun = true, true
	if res, err = connect.Connect(reg, tk, noHooks); err != nil || res.Plan.Action != connect.Update || bytes.Contains(res.Plan.After, []byte(" hook ")) || !bytes.Contains(res.Plan.After, []byte(`"mcp",`)) {
		t.Errorf("--no-hooks: %v, %v, would leave:\n%s", res.Plan.Action, err, res.Plan.After)
	}
	if res, err = connect.Disconnect(reg, tk, req); err != nil || res.Plan.Action != connect.Restore {
		t.Fatalf("Disconnect: %v, %v", res.Plan.Action, err)
	}
	if now, _ := os.ReadFile(path); !bytes.Equal(now, input) {
		t.Errorf("the file did not come back byte for byte:\n%s", now)
	}
}

// TestHooksState: for every client with hooks, State says whether
// Engram's hooks are installed and with capture or without, as a
// connect with or without --no-capture leaves them; connecting again
// with the other choice switches capture in place.
func TestHooksState(t *testing.T) {
	svc := newService(t)
	reg := connect.ForService(context.Background(), svc, operator)
	for _, c := range connect.Clients {
		if c.Hooks == nil {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			env := testEnv(t.TempDir())
			tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
			req := connect.Request{Client: c, Env: env, Command: engramBin}
			off := req
			off.HookArgs = []string{"--no-capture"}
			var got []connect.HookState
			got = append(got, c.Hooks.State(env, engramBin))
			for _, r := range []connect.Request{req, off, req} {
				if _, err := connect.Connect(reg, tk, r); err != nil {
					t.Fatal(err)
				}
				got = append(got, c.Hooks.State(env, engramBin))
			}
			if _, err := connect.Disconnect(reg, tk, req); err != nil {
				t.Fatal(err)
			}
			got = append(got, c.Hooks.State(env, engramBin))
			want := []connect.HookState{connect.HooksAbsent, connect.HooksCapture, connect.HooksNoCapture, connect.HooksCapture, connect.HooksAbsent}
			if !slices.Equal(got, want) {
				t.Errorf("states = %v, want %v", got, want)
			}
		})
	}
}
