package connect

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestApplyRetrying: a client that rewrites its file between the plan and
// the write (Claude Code does) loses neither its change nor Engram's.
func TestApplyRetrying(t *testing.T) {
	c, _ := Find("claude-code")
	home := t.TempDir()
	env := Env{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }, GOOS: "linux"}
	path := filepath.Join(home, ".claude.json")
	if err := os.WriteFile(path, []byte(`{"numStartups": 1}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := NewEntry("/usr/bin/engram", "claude-code", nil)
	plan, err := c.PlanInstall(env, e)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(`{"numStartups": 2}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := applyRetrying(plan, func() (Plan, error) { return c.PlanInstall(env, e) }); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Contains(got, []byte(`"numStartups": 2`)) || !bytes.Contains(got, []byte(`"--agent"`)) {
		t.Errorf("after the retry:\n%s", got)
	}
}
