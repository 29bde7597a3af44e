package connect_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/engram-app/engram/app/connect"
)

// FuzzEdit feeds any bytes as a client's file: Edit either refuses them or
// gives a file that still reads as before plus Engram's entry, that a
// second Edit leaves alone and that Strip takes the entry out of. A TOML
// file is edited only when it is TOML, and gives TOML; Strip refuses one
// that is not.
func FuzzEdit(f *testing.F) {
	for _, c := range connect.Clients {
		if b, err := os.ReadFile(filepath.Join("testdata", c.ID, "existing.input")); err == nil {
			f.Add(b, c.Format == connect.TOML)
		}
	}
	f.Add([]byte(`{"mcpServers": {"engram": {"command": "x", "args": []}}}`), false)
	f.Add([]byte("[mcp_servers.engram]\ncommand = \"x\"\n[mcp_servers.engram.env]\nA = \"b\"\n"), true)
	f.Add([]byte("model = \"gpt-5\napproval_policy = \"on-request\"\n"), true)
	f.Add([]byte("notes = \"\"\"\n[mcp_servers.engram]\n\"\"\"\nm = [\n  [1],\n]\n"), true)
	f.Add([]byte("mcp_servers = { docs = { command = \"npx\" } }\n"), true)
	vscode, _ := connect.Find("vscode")
	codex, _ := connect.Find("codex")
	e := connect.NewEntry(engramBin, "fuzz", map[string]string{"ENGRAM_HOME": "/h"})
	f.Fuzz(func(t *testing.T, src []byte, isTOML bool) {
		c := vscode
		if isTOML {
			c = codex
		}
		isTOMLFile := false
		if isTOML {
			var doc map[string]any
			_, derr := toml.Decode(string(src), &doc)
			isTOMLFile = derr == nil
			if _, _, err := c.Strip(src); !isTOMLFile && err == nil {
				t.Fatalf("Strip kept a file that is not TOML (%v):\n%q", derr, src)
			}
		}
		out, err := c.Edit(src, e)
		if err != nil {
			return
		}
		if isTOML && !isTOMLFile {
			t.Fatalf("Edit kept a file that is not TOML:\n%q", src)
		}
		if again, err := c.Edit(out, e); err != nil || !bytes.Equal(again, out) {
			t.Fatalf("second Edit = %v, changed %v\n%q", err, !bytes.Equal(again, out), out)
		}
		stripped, had, err := c.Strip(out)
		if err != nil || !had {
			t.Fatalf("Strip(Edit(src)) = %v, %v\n%q", had, err, out)
		}
		if _, had, _ := c.Strip(stripped); had {
			t.Fatalf("Strip left an entry:\n%q", stripped)
		}
		if isTOML {
			var after map[string]any
			if _, err := toml.Decode(string(out), &after); err != nil {
				t.Fatalf("valid TOML became invalid: %v\n%q", err, out)
			}
			return
		}
		var before, after any
		if json.Unmarshal(src, &before) != nil {
			return
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatalf("valid JSON became invalid: %v\n%q", err, out)
		}
	})
}
