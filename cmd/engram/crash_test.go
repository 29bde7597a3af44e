package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCrashHarness kills a real 'engram serve' with SIGKILL at random
// moments while agents write to it, again and again, and checks after
// every kill that the vault opens, passes 'engram doctor', and holds every
// write the server had acknowledged. Run it with 'make crash'
// (ENGRAM_CRASH=1; ENGRAM_CRASH_KILLS sets the number of kills, default 50).
func TestCrashHarness(t *testing.T) {
	if os.Getenv("ENGRAM_CRASH") == "" {
		t.Skip("the crash harness runs with 'make crash' (ENGRAM_CRASH=1)")
	}
	kills := 50
	if n, err := strconv.Atoi(os.Getenv("ENGRAM_CRASH_KILLS")); err == nil && n > 0 {
		kills = n
	}
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "engram")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	home, rt := filepath.Join(tmp, "home"), filepath.Join(tmp, "run")
	os.MkdirAll(rt, 0o700)
	pass := filepath.Join(tmp, "pass")
	os.WriteFile(pass, []byte("crash harness passphrase\n"), 0o600)
	env := append(os.Environ(), "ENGRAM_HOME="+home, "XDG_RUNTIME_DIR="+rt, "ENGRAM_NO_KEYRING=1", "ENGRAM_PASSPHRASE=")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("engram %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("init", "--passphrase-file", pass, "--no-keyring")
	lines := strings.Split(strings.TrimSpace(run("agent", "add", "crash-agent")), "\n")
	token := strings.TrimSpace(lines[len(lines)-1])
	if !strings.HasPrefix(token, "engram_") {
		t.Fatalf("no token from agent add: %q", lines)
	}

	rng := rand.New(rand.NewPCG(7, 7))
	acked := map[string]string{} // id -> content, acknowledged by the server
	for kill := 1; kill <= kills; kill++ {
		srv, base := startServe(t, bin, env, rt)
		// Four writers until the kill, which comes at a random moment.
		var mu sync.Mutex
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := 0; ctx.Err() == nil; i++ {
					content := fmt.Sprintf("crash %d writer %d note %d", kill, w, i)
					var r struct {
						Status string `json:"status"`
						ID     string `json:"id"`
					}
					if code := call(base, token, "POST", "/v1/memories", map[string]any{"content": content, "field": "learnings"}, &r); code >= 200 && code < 300 && r.ID != "" {
						mu.Lock()
						acked[r.ID] = content
						mu.Unlock()
					}
				}
			})
		}
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		srv.Wait()
		stop()
		wg.Wait()
		os.Remove(filepath.Join(rt, "engram", "engram.addr")) // a killed server cannot remove it
		out := run("doctor")
		if !strings.Contains(out, "memories:") || strings.Contains(out, "PROBLEM") {
			t.Fatalf("kill %d: doctor says\n%s", kill, out)
		}
		// Every write the server acknowledged, before this kill or any
		// earlier one, is in the vault.
		var list struct {
			Memories []struct{ ID, Content string } `json:"memories"`
		}
		listCmd := exec.Command(bin, "memory", "list", "--json")
		listCmd.Env = env
		raw, err := listCmd.Output()
		if err != nil {
			t.Fatalf("kill %d: memory list: %v", kill, err)
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
		stored := map[string]string{}
		for _, m := range list.Memories {
			stored[m.ID] = m.Content
		}
		for id, content := range acked {
			if stored[id] != content {
				t.Fatalf("kill %d: acknowledged memory %s is %q after the crash, want %q", kill, id, stored[id], content)
			}
		}
	}
	t.Logf("%d kills; %d acknowledged writes, all present after every crash", kills, len(acked))
}

// startServe starts engram serve on a free loopback port and returns it
// with its base URL once it answers.
func startServe(t *testing.T, bin string, env []string, rt string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addrFile := filepath.Join(rt, "engram", "engram.addr")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if b, err := os.ReadFile(addrFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			base := "http://" + strings.TrimSpace(string(b))
			if resp, err := http.Get(base + "/v1/health"); err == nil {
				resp.Body.Close()
				return cmd, base
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("engram serve did not start:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// call makes one API request and decodes the reply into out; a transport
// error (the server was killed) gives 0.
func call(base, token, method, path string, body, out any) int {
	var rd *bytes.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if json.NewDecoder(resp.Body).Decode(out) != nil {
		return 0
	}
	return resp.StatusCode
}
