package connect_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const engramBin = "/usr/local/bin/engram"

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what was produced:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func testEnv(home string) connect.Env {
	env := map[string]string{"HOME": home}
	return connect.Env{
		Getenv:   func(k string) string { return env[k] },
		GOOS:     "linux",
		LookPath: func(string) (string, error) { return "", errors.New("not found") },
	}
}

// checkEntry parses out, as the client would, and checks Engram's entry.
func checkEntry(t *testing.T, c connect.Client, out []byte, agent string) {
	t.Helper()
	var doc map[string]any
	if c.Format == connect.TOML {
		if _, err := toml.Decode(string(out), &doc); err != nil {
			t.Fatalf("%s: the result is not TOML: %v\n%s", c.ID, err, out)
		}
	} else {
		if err := json.Unmarshal(jsonc(out), &doc); err != nil {
			t.Fatalf("%s: the result is not JSON: %v\n%s", c.ID, err, out)
		}
	}
	servers, _ := doc[c.Container].(map[string]any)
	e, _ := servers[connect.ServerName].(map[string]any)
	if e == nil {
		t.Fatalf("%s: no %s.%s in\n%s", c.ID, c.Container, connect.ServerName, out)
	}
	args, _ := e["args"].([]any)
	if e["command"] != engramBin || len(args) != 3 || args[0] != "mcp" || args[1] != "--agent" || args[2] != agent {
		t.Errorf("%s: entry = %v, want %s mcp --agent %s", c.ID, e, engramBin, agent)
	}
	if c.Type != "" && e["type"] != c.Type {
		t.Errorf("%s: type = %v, want %s", c.ID, e["type"], c.Type)
	}
	if bytes.Contains(out, []byte("engram_")) || bytes.Contains(out, []byte("ENGRAM_TOKEN")) {
		t.Errorf("%s: a token in the client's file:\n%s", c.ID, out)
	}
}

// jsonc drops comments and trailing commas, as VS Code and Zed read them.
func jsonc(src []byte) []byte {
	var out []byte
	inStr := false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' {
				i++
				out = append(out, src[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && src[i+1] == '*':
			i += bytes.Index(src[i:], []byte("*/")) + 1
		case c == '}' || c == ']':
			t := bytes.TrimRight(out, " \t\n")
			if len(t) > 0 && t[len(t)-1] == ',' {
				out = append(t[:len(t)-1], out[len(t):]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// TestGolden checks, for every client, a fresh install, an install into an
// existing file with other servers (and comments where the format has
// them), a second run and a removal, on the bytes.
func TestGolden(t *testing.T) {
	for _, c := range connect.Clients {
		t.Run(c.ID, func(t *testing.T) {
			dir := filepath.Join("testdata", c.ID)
			e := connect.NewEntry(engramBin, c.ID, nil)

			fresh, err := c.Edit(nil, e)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "fresh.golden"), fresh)
			checkEntry(t, c, fresh, c.ID)

			input, err := os.ReadFile(filepath.Join(dir, "existing.input"))
			if err != nil {
				t.Fatal(err)
			}
			installed, err := c.Edit(input, e)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(dir, "existing.golden"), installed)
			checkEntry(t, c, installed, c.ID)

			for name, src := range map[string][]byte{"fresh": fresh, "existing": installed} {
				again, err := c.Edit(src, e)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(again, src) {
					t.Errorf("second install into %s changed the file:\n%s", name, again)
				}
			}

			stripped, had, err := c.Strip(installed)
			if err != nil || !had {
				t.Fatalf("Strip = %v, %v", had, err)
			}
			if !bytes.Equal(stripped, input) {
				t.Errorf("removal did not give back the original:\n--- got\n%s\n--- want\n%s", stripped, input)
			}
		})
	}
}

// TestFiles runs install, a second install and removal on real files, and
// checks the backup, the mode and the byte-for-byte restore.
func TestFiles(t *testing.T) {
	for _, c := range connect.Clients {
		t.Run(c.ID, func(t *testing.T) {
			home := t.TempDir()
			env := testEnv(home)
			path := c.ConfigPath(env)
			if !strings.HasPrefix(path, home) {
				t.Fatalf("ConfigPath = %s, not under HOME", path)
			}
			input, err := os.ReadFile(filepath.Join("testdata", c.ID, "existing.input"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, input, 0o640); err != nil {
				t.Fatal(err)
			}
			if !c.Installed(env) {
				t.Errorf("Installed = false with %s present", filepath.Dir(path))
			}
			e := connect.NewEntry(engramBin, c.ID, nil)
			if st := c.StatusOf(env); st.Connected || st.Err != nil {
				t.Errorf("StatusOf before = %+v", st)
			}

			p, err := c.PlanInstall(env, e)
			if err != nil {
				t.Fatal(err)
			}
			if p.Action != connect.Update || !strings.Contains(p.Diff(), "+") {
				t.Fatalf("plan = %s, diff %q", p.Action, p.Diff())
			}
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(path + connect.BackupSuffix); !bytes.Equal(b, input) {
				t.Errorf("backup = %q, want the original", b)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode = %v, want 0640 kept", fi.Mode().Perm())
			}
			after, _ := os.ReadFile(path)
			if st := c.StatusOf(env); !st.Connected || st.Agent != c.ID {
				t.Errorf("StatusOf after = %+v", st)
			}

			p, err = c.PlanInstall(env, e)
			if err != nil {
				t.Fatal(err)
			}
			if p.Action != connect.Unchanged || p.Diff() != "" {
				t.Errorf("second plan = %s, diff %q", p.Action, p.Diff())
			}
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			if again, _ := os.ReadFile(path); !bytes.Equal(again, after) {
				t.Errorf("second run changed the file")
			}

			p, err = c.PlanRemove(env, e)
			if err != nil {
				t.Fatal(err)
			}
			if p.Action != connect.Restore {
				t.Errorf("remove plan = %s, want %s", p.Action, connect.Restore)
			}
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, input) {
				t.Errorf("after removal:\n%s\nwant the original:\n%s", got, input)
			}
			if _, err := os.Stat(path + connect.BackupSuffix); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the backup is still there after the restore: %v", err)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Errorf("mode after removal = %v", fi.Mode().Perm())
			}

			// A fresh install creates the file (0600) and a removal deletes it.
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			p, err = c.PlanInstall(env, e)
			if err != nil || p.Action != connect.Create {
				t.Fatalf("fresh plan = %s, %v", p.Action, err)
			}
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
				t.Errorf("new file mode = %v, want 0600", fi.Mode().Perm())
			}
			p, err = c.PlanRemove(env, e)
			if err != nil || p.Action != connect.Delete {
				t.Fatalf("fresh remove plan = %s, %v", p.Action, err)
			}
			if err := p.Apply(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the file Engram created is still there: %v", err)
			}
		})
	}
}

// TestRemoveAfterOtherChange: when the client changed its file after the
// install, removal takes out only Engram's entry and keeps the change.
func TestRemoveAfterOtherChange(t *testing.T) {
	c, _ := connect.Find("claude-code")
	home := t.TempDir()
	env := testEnv(home)
	path := c.ConfigPath(env)
	input, _ := os.ReadFile("testdata/claude-code/existing.input")
	if err := os.WriteFile(path, input, 0o600); err != nil {
		t.Fatal(err)
	}
	e := connect.NewEntry(engramBin, "claude-code", nil)
	p, _ := c.PlanInstall(env, e)
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	b = bytes.Replace(b, []byte(`"numStartups": 12`), []byte(`"numStartups": 13`), 1)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := c.PlanRemove(env, e)
	if err != nil || p.Action != connect.Update {
		t.Fatalf("remove plan = %s, %v", p.Action, err)
	}
	want := bytes.Replace(input, []byte(`"numStartups": 12`), []byte(`"numStartups": 13`), 1)
	if !bytes.Equal(p.After, want) {
		t.Errorf("after removal:\n%s\nwant:\n%s", p.After, want)
	}
}

// TestReplaceOldEntry: an entry written by hand with the token in the
// file (as the README once said) is replaced, and the token leaves the file.
func TestReplaceOldEntry(t *testing.T) {
	for _, tc := range []struct{ id, src string }{
		{"cursor", `{"mcpServers": {"engram": {"command": "/opt/engram", "args": ["mcp"], "env": {"ENGRAM_TOKEN": "engram_abc"}}}}` + "\n"},
		{"codex", "[mcp_servers.engram]\ncommand = \"/opt/engram\"\nargs = [\"mcp\"]\n\n[mcp_servers.engram.env]\nENGRAM_TOKEN = \"engram_abc\"\n\n[other]\nx = 1\n"},
	} {
		t.Run(tc.id, func(t *testing.T) {
			c, _ := connect.Find(tc.id)
			out, err := c.Edit([]byte(tc.src), connect.NewEntry(engramBin, "me", nil))
			if err != nil {
				t.Fatal(err)
			}
			checkEntry(t, c, out, "me")
			if tc.id == "codex" && !strings.Contains(string(out), "[other]\nx = 1") {
				t.Errorf("the next table was lost:\n%s", out)
			}
		})
	}
}

// TestEnvAndEscaping: the entry's environment and unusual characters in
// the path come out valid in both formats.
func TestEnvAndEscaping(t *testing.T) {
	for _, id := range []string{"vscode", "codex"} {
		c, _ := connect.Find(id)
		e := connect.NewEntry(`/home/o'neil/"my apps"/engram`, "x", map[string]string{"ENGRAM_HOME": `C:\Users\sam\engram`})
		out, err := c.Edit(nil, e)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]map[string]map[string]any
		if c.Format == connect.TOML {
			_, err = toml.Decode(string(out), &doc)
		} else {
			err = json.Unmarshal(out, &doc)
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", id, err, out)
		}
		got := doc[c.Container]["engram"]
		if got["command"] != e.Command {
			t.Errorf("%s: command = %v", id, got["command"])
		}
		if env, _ := got["env"].(map[string]any); env["ENGRAM_HOME"] != e.Env["ENGRAM_HOME"] {
			t.Errorf("%s: env = %v", id, got["env"])
		}
	}
}

func TestBadFiles(t *testing.T) {
	for _, tc := range []struct{ id, src string }{
		{"cursor", `{"mcpServers": {"a": 1,, }}`},
		{"cursor", `[1, 2]`},
		{"cursor", `{"mcpServers": []}`},
		{"zed", "{\n  \"a\": 1 /* open comment\n}"},
		{"codex", "[mcp_servers]\nengram = { command = \"x\" }\n"},
	} {
		c, _ := connect.Find(tc.id)
		if _, err := c.Edit([]byte(tc.src), connect.NewEntry(engramBin, "x", nil)); !errors.Is(err, connect.ErrSyntax) {
			t.Errorf("Edit(%s, %q) = %v, want ErrSyntax", tc.id, tc.src, err)
		}
	}
}

func TestDiff(t *testing.T) {
	c, _ := connect.Find("vscode")
	home := t.TempDir()
	env := testEnv(home)
	path := c.ConfigPath(env)
	input, _ := os.ReadFile("testdata/vscode/existing.input")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, input, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := c.PlanInstall(env, connect.NewEntry(engramBin, "vscode", nil))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/vscode/install.diff", []byte(strings.ReplaceAll(p.Diff(), path, "mcp.json")))
}

func TestFollowsSymlink(t *testing.T) {
	c, _ := connect.Find("cursor")
	home := t.TempDir()
	env := testEnv(home)
	target := filepath.Join(home, "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".cursor"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, c.ConfigPath(env)); err != nil {
		t.Fatal(err)
	}
	p, err := c.PlanInstall(env, connect.NewEntry(engramBin, "cursor", nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(c.ConfigPath(env)); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(target)
	checkEntry(t, c, b, "cursor")
}

func TestApplyRefusesAChangedFile(t *testing.T) {
	c, _ := connect.Find("gemini")
	home := t.TempDir()
	env := testEnv(home)
	path := c.ConfigPath(env)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, _ := c.PlanInstall(env, connect.NewEntry(engramBin, "gemini", nil))
	if err := os.WriteFile(path, []byte(`{"ui": {}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := p.Apply(); !errors.Is(err, connect.ErrChanged) {
		t.Errorf("Apply = %v, want ErrChanged", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"ui": {}}`+"\n" {
		t.Errorf("the file was written: %s", b)
	}
}

func TestFind(t *testing.T) {
	for in, want := range map[string]string{"claude": "claude-code", "Code": "vscode", "zed": "zed", "codex-cli": "codex"} {
		if c, err := connect.Find(in); err != nil || c.ID != want {
			t.Errorf("Find(%q) = %q, %v, want %q", in, c.ID, err, want)
		}
	}
	if _, err := connect.Find("notepad"); !errors.Is(err, connect.ErrUnknownClient) {
		t.Errorf("Find(notepad) = %v", err)
	}
}

// memSecrets is a keyring in memory; unavailable makes it fail as a
// system without a keyring does.
type memSecrets struct {
	m           map[string]string
	unavailable bool
}

func (s *memSecrets) Get(name string) (string, error) {
	if s.unavailable {
		return "", app.ErrKeyringUnavailable
	}
	v, ok := s.m[name]
	if !ok {
		return "", app.ErrNoKey
	}
	return v, nil
}

func (s *memSecrets) Set(name, v string) error {
	if s.unavailable {
		return app.ErrKeyringUnavailable
	}
	s.m[name] = v
	return nil
}

func (s *memSecrets) Delete(name string) error {
	if s.unavailable {
		return app.ErrKeyringUnavailable
	}
	delete(s.m, name)
	return nil
}

func TestTokens(t *testing.T) {
	dir := t.TempDir()
	kr := &memSecrets{m: map[string]string{}}
	tk := connect.Tokens{Keyring: kr, DataDir: dir}
	st, err := tk.Save("cursor", "engram_one")
	if err != nil || st.File != "" {
		t.Fatalf("Save = %+v, %v", st, err)
	}
	if got, err := tk.Load("cursor"); got != "engram_one" || err != nil {
		t.Errorf("Load = %q, %v", got, err)
	}

	kr.unavailable = true
	st, err = tk.Save("zed", "engram_two")
	if err != nil || st.File != tk.File("zed") || !errors.Is(st.Why, app.ErrKeyringUnavailable) {
		t.Fatalf("Save without keyring = %+v, %v", st, err)
	}
	fi, err := os.Stat(st.File)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode = %v, %v", fi.Mode().Perm(), err)
	}
	if got, err := tk.Load("zed"); got != "engram_two" || err != nil {
		t.Errorf("Load from the file = %q, %v", got, err)
	}
	if err := tk.Delete("zed"); err != nil {
		t.Fatal(err)
	}
	if _, err := tk.Load("zed"); !errors.Is(err, connect.ErrNoToken) {
		t.Errorf("Load after Delete = %v", err)
	}
	for _, bad := range []string{"../x", "a/b", ".hidden", ""} {
		if _, err := tk.Save(bad, "t"); err == nil {
			t.Errorf("Save(%q) took the name", bad)
		}
	}
}

// TestOSKeyring stores a token in the real OS keyring: run under
// .ci/with-keyring.
func TestOSKeyring(t *testing.T) {
	if os.Getenv("ENGRAM_TEST_KEYRING") != "1" || os.Getenv("DBUS_SESSION_BUS_ADDRESS") == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("CI must run inside .ci/with-keyring")
		}
		t.Skip("no private keyring session; run under .ci/with-keyring")
	}
	dir := t.TempDir()
	tk := connect.Tokens{Keyring: app.OSSecrets{}, DataDir: dir}
	st, err := tk.Save("keyring-test", "engram_real")
	if err != nil || st.File != "" {
		t.Fatalf("Save = %+v, %v", st, err)
	}
	if _, err := os.Stat(tk.File("keyring-test")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a token file was written beside the keyring: %v", err)
	}
	if got, err := tk.Load("keyring-test"); got != "engram_real" || err != nil {
		t.Errorf("Load = %q, %v", got, err)
	}
	if err := tk.Delete("keyring-test"); err != nil {
		t.Fatal(err)
	}
	if _, err := tk.Load("keyring-test"); !errors.Is(err, connect.ErrNoToken) {
		t.Errorf("Load after Delete = %v", err)
	}
}

// TestCRLF: a Windows file with CRLF line ends keeps them, Engram's lines
// included, and comes back byte for byte.
func TestCRLF(t *testing.T) {
	for _, c := range connect.Clients {
		input, err := os.ReadFile(filepath.Join("testdata", c.ID, "existing.input"))
		if err != nil {
			t.Fatal(err)
		}
		crlf := bytes.ReplaceAll(input, []byte("\n"), []byte("\r\n"))
		out, err := c.Edit(crlf, connect.NewEntry(engramBin, c.ID, nil))
		if err != nil {
			t.Fatal(err)
		}
		if n := bytes.Count(out, []byte("\n")); n == 0 || bytes.Count(out, []byte("\r\n")) != n {
			t.Errorf("%s: a line without CR:\n%q", c.ID, out)
		}
		if again, _ := c.Edit(out, connect.NewEntry(engramBin, c.ID, nil)); !bytes.Equal(again, out) {
			t.Errorf("%s: second Edit changed a CRLF file", c.ID)
		}
		if back, _, _ := c.Strip(out); !bytes.Equal(back, crlf) {
			t.Errorf("%s: Strip = %q, want the original", c.ID, back)
		}
	}
}
