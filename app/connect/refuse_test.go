package connect_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/connect"
)

// sparse makes path a file of size bytes that takes no room on disk.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// unchanged fails the test unless path holds want and no backup was made.
func unchanged(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s changed (%v)", path, err)
	}
	if _, err := os.Stat(path + connect.BackupSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a backup was made: %v", err)
	}
}

// TestFileTooLarge: a client's file over MaxFileSize is refused with the
// reason, before it is read, by every path that reads it; nothing is
// registered and the file is not touched.
func TestFileTooLarge(t *testing.T) {
	c, _ := connect.Find("claude-code")
	home := t.TempDir()
	env := testEnv(home)
	path := c.ConfigPath(env)
	sparse(t, path, connect.MaxFileSize+1)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	e := connect.NewEntry(engramBin, "claude-code", nil)
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, connect.ErrTooLarge) || !strings.Contains(err.Error(), path+" is larger than 128 MiB; Engram does not edit it") {
			t.Errorf("%s = %v, want ErrTooLarge naming the file and the cap", what, err)
		}
	}
	_, err = c.PlanInstall(env, e)
	check("PlanInstall", err)
	_, err = c.PlanRemove(env, e)
	check("PlanRemove", err)
	check("StatusOf", c.StatusOf(env).Err)

	svc := newService(t)
	tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
	_, err = connect.Connect(connect.ForService(context.Background(), svc, operator), tk, connect.Request{Client: c, Env: env, Command: engramBin})
	check("Connect", err)
	if s := agentStatus(t, svc, "claude-code"); s != "" {
		t.Errorf("an agent was registered: %s", s)
	}
	after, err := os.Stat(path)
	if err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the file was touched: %v", err)
	}
	if _, err := os.Stat(path + connect.BackupSuffix); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a backup was made: %v", err)
	}
}

// malformedTOML is Codex's config.toml with a string left open on line 3.
const malformedTOML = `# Codex settings
model = "gpt-5-codex"
approval_policy = "on-request

[mcp_servers.docs]
command = "npx"
`

// TestMalformedTOML: a TOML file that does not parse is refused whole,
// with its line, as malformed JSON is, and left byte for byte as it was;
// so is one that Engram's entry cannot be added to without breaking it.
func TestMalformedTOML(t *testing.T) {
	c, _ := connect.Find("codex")
	e := connect.NewEntry(engramBin, "codex", nil)
	tests := []struct {
		name, src string
		msg       string // in the error
	}{
		{"string left open", malformedTOML, "line 3"},
		{"not a key and value", "model = \"gpt-5-codex\"\nthis is not toml\n", "line 2"},
		{"key without a value", "[tui]\nnotifications =\n", "line 2"},
		{"duplicate key", "model = \"a\"\nmodel = \"b\"\n", "line 2"},
		{"table defined twice", "[mcp_servers.docs]\ncommand = \"a\"\n[mcp_servers.docs]\ncommand = \"b\"\n", "line 3"},
		{"unclosed header", "[mcp_servers.docs\ncommand = \"a\"\n", "to end table name"},
		{"servers as an inline table", "mcp_servers = { docs = { command = \"npx\" } }\n", "inline table on line 1"},
		{"entry as dotted keys", "mcp_servers.engram.command = \"x\"\n", "cannot be added"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Edit([]byte(tc.src), e)
			if !errors.Is(err, connect.ErrSyntax) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Edit = %v, want ErrSyntax with %q", err, tc.msg)
			}
		})
	}

	// Valid TOML that looks unusual is still edited, and stays TOML.
	for _, src := range []string{
		"mcp_servers.docs.command = \"npx\"\n",
		"\xef\xbb\xbf[mcp_servers.docs]\ncommand = \"npx\"\n",
		"title = \"\"\"\nmcp_servers = { not = \"a key\" }\n\"\"\"\n",
		"[mcp_servers]\n\n[mcp_servers.docs]\ncommand = \"npx\"\n",
		"notes = \"\"\"\n[mcp_servers.engram]\ncommand = \"old\"\n\"\"\"\n",
		"notes = '''\n[mcp_servers]\nengram = { command = \"old\" }\n'''\n",
		"matrix = [\n  [1, 2],\n  [3, 4]\n]\n[mcp_servers.docs]\ncommand = \"npx\"\n",
	} {
		out, err := c.Edit([]byte(src), e)
		if err != nil {
			t.Errorf("Edit(%q) = %v, want it edited", src, err)
			continue
		}
		checkEntry(t, c, out, "codex")
		if back, had, err := c.Strip(out); err != nil || !had || string(back) != src {
			t.Errorf("Strip(Edit(%q)) = %q, %v, %v; want the file as it was", src, back, had, err)
		}
	}

	// Through the file: refused before anything is registered, the file
	// and its folder as they were.
	home := t.TempDir()
	env := testEnv(home)
	path := c.ConfigPath(env)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(malformedTOML), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := newService(t)
	tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
	_, err := connect.Connect(connect.ForService(context.Background(), svc, operator), tk, connect.Request{Client: c, Env: env, Command: engramBin})
	if !errors.Is(err, connect.ErrSyntax) || !strings.Contains(err.Error(), path+": cannot read the client's configuration: line 3:") {
		t.Errorf("Connect = %v, want ErrSyntax naming the file and line 3", err)
	}
	if s := agentStatus(t, svc, "codex"); s != "" {
		t.Errorf("an agent was registered: %s", s)
	}
	unchanged(t, path, []byte(malformedTOML))
	if st := c.StatusOf(env); !errors.Is(st.Err, connect.ErrSyntax) {
		t.Errorf("StatusOf = %+v, want ErrSyntax", st)
	}

	// A malformed file holding Engram's entry: --remove refuses it too.
	withEntry := malformedTOML + "\n" + c.MarshalEntry(e) + "\n"
	if err := os.WriteFile(path, []byte(withEntry), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PlanRemove(env, e); !errors.Is(err, connect.ErrSyntax) || !strings.Contains(err.Error(), "line 3") {
		t.Errorf("PlanRemove = %v, want ErrSyntax with line 3", err)
	}
	unchanged(t, path, []byte(withEntry))
}
