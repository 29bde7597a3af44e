package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuietUnderCUTF8: under LANG=C.UTF-8 (Debian's default in containers)
// a command prints its output and no "Fyne error" about the locale.
func TestQuietUnderCUTF8(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "engram")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "LANG", "LC_ALL", "LC_MESSAGES", "LANGUAGE":
		default:
			env = append(env, kv)
		}
	}
	cmd := exec.Command(bin, "help")
	cmd.Env = append(env, "LANG=C.UTF-8")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Usage") || strings.Contains(string(out), "Fyne error") {
		t.Fatalf("LANG=C.UTF-8 engram help = %v:\n%s", err, out)
	}
}
