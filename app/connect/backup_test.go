package connect_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/engram-app/engram/app/connect"
)

// originalHooks is a user's hooks file that taking Engram's hooks out
// again cannot give back byte for byte: its empty "hooks" object goes
// with the last of Engram's groups (Strip).
const originalHooks = "{\n  \"theme\": \"dark\",\n  \"hooks\": {}\n}\n"

// TestBackupKeptAcrossInstalls: the backup is the file as it was before
// Engram first changed it, however many times connect changed Engram's
// parts since (here: plain, then --no-capture from an engram that moved),
// so that --remove gives the file back byte for byte; a user's edit in
// between is kept instead, with only Engram's parts taken out.
func TestBackupKeptAcrossInstalls(t *testing.T) {
	for _, c := range hookClients(t) {
		for _, userEdit := range []bool{false, true} {
			svc := newService(t)
			reg := connect.ForService(context.Background(), svc, operator)
			home := t.TempDir()
			env := testEnv(home)
			tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
			path := c.Hooks.Path(env)
			os.MkdirAll(filepath.Dir(path), 0o700)
			if err := os.WriteFile(path, []byte(originalHooks), 0o600); err != nil {
				t.Fatal(err)
			}
			first := connect.Request{Client: c, Env: env, Command: engramBin}
			if _, err := connect.Connect(reg, tk, first); err != nil {
				t.Fatalf("%s: first connect: %v", c.ID, err)
			}
			if userEdit {
				b, _ := os.ReadFile(path)
				b = bytes.Replace(b, []byte(`"theme": "dark"`), []byte(`"theme": "light"`), 1)
				if err := os.WriteFile(path, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			second := first
			second.Command, second.HookArgs = "/opt/engram/bin/engram", []string{"--no-capture"}
			res, err := connect.Connect(reg, tk, second)
			if err != nil || !res.HookPlan.Changes() && !res.Plan.Changes() {
				t.Fatalf("%s: second connect: %+v / %+v, %v", c.ID, res.Plan.Action, res.HookPlan.Action, err)
			}
			if now, _ := os.ReadFile(path); !bytes.Contains(now, []byte("--no-capture")) {
				t.Fatalf("%s: the second connect did not change the hooks:\n%s", c.ID, now)
			}
			if b, _ := os.ReadFile(path + connect.BackupSuffix); string(b) != originalHooks {
				t.Errorf("%s (edit %v): backup after the second connect = %q, want the file before Engram", c.ID, userEdit, b)
			}
			if _, err := connect.Disconnect(reg, tk, second); err != nil {
				t.Fatalf("%s: disconnect: %v", c.ID, err)
			}
			now, _ := os.ReadFile(path)
			if !userEdit {
				if string(now) != originalHooks {
					t.Errorf("%s: after --remove:\n%s\nwant, byte for byte:\n%s", c.ID, now, originalHooks)
				}
				if _, err := os.Stat(path + connect.BackupSuffix); err == nil {
					t.Errorf("%s: the backup stayed after it was given back", c.ID)
				}
				continue
			}
			if !bytes.Contains(now, []byte(`"theme": "light"`)) || bytes.Contains(now, []byte(" hook ")) || bytes.Contains(now, []byte("engram-hook")) {
				t.Errorf("%s: after --remove with a user's edit in between (want the edit kept, Engram's hooks gone):\n%s", c.ID, now)
			}
			if b, _ := os.ReadFile(path + connect.BackupSuffix); string(b) != originalHooks {
				t.Errorf("%s: after --remove with a user's edit, backup = %q, want it left as the file before Engram", c.ID, b)
			}
		}
	}
}

// TestBackupKeptMCPEntry: the same for the MCP entry: connected by an
// engram that then moved (a second connect rewrites the entry's
// command), --remove gives the file back byte for byte.
func TestBackupKeptMCPEntry(t *testing.T) {
	c, _ := connect.Find("cursor")
	svc := newService(t)
	reg := connect.ForService(context.Background(), svc, operator)
	env := testEnv(t.TempDir())
	tk := connect.Tokens{Keyring: &memSecrets{m: map[string]string{}}, DataDir: t.TempDir()}
	path := c.ConfigPath(env)
	const original = "{\n  \"mcpServers\": {},\n  \"other\": true\n}\n"
	os.MkdirAll(filepath.Dir(path), 0o700)
	if err := os.WriteFile(path, []byte(original), 0o600); err != nil {
		t.Fatal(err)
	}
	req := connect.Request{Client: c, Env: env, Command: engramBin, NoHooks: true}
	if _, err := connect.Connect(reg, tk, req); err != nil {
		t.Fatal(err)
	}
	req.Command, req.ExtraEnv = "/opt/engram/bin/engram", map[string]string{"ENGRAM_HOME": "/srv/vault"}
	res, err := connect.Connect(reg, tk, req)
	if err != nil || res.Plan.Action != connect.Update || res.Plan.WritesBackup() {
		t.Fatalf("second connect: %s (writes backup %v), %v", res.Plan.Action, res.Plan.WritesBackup(), err)
	}
	req.Command, req.ExtraEnv = engramBin, nil // --remove from yet another engram
	if res, err = connect.Disconnect(reg, tk, req); err != nil || res.Plan.Action != connect.Restore {
		t.Fatalf("disconnect: %s, %v", res.Plan.Action, err)
	}
	if now, _ := os.ReadFile(path); string(now) != original {
		t.Errorf("after --remove:\n%s\nwant, byte for byte:\n%s", now, original)
	}
	if b, err := os.ReadFile(path + connect.BackupSuffix); err == nil {
		t.Errorf("backup left: %s", strings.TrimSpace(string(b)))
	}
}
