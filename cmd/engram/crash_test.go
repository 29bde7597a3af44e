package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCrashHarness kills a real 'engram serve' with SIGKILL at random
// moments while agents store, update and delete, again and again, and
// checks after every kill that 'engram doctor' and 'engram audit verify'
// pass, that every acknowledged change holds with its exact content, that
// a change cut by the kill is either done or not (never half-applied), and
// that the rebuilt recall index finds what the store holds. Run it with
// 'make crash' (ENGRAM_CRASH=1; ENGRAM_CRASH_KILLS, default 50;
// ENGRAM_CRASH_SEED reproduces a run: the seed is printed).
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

	seed := uint64(time.Now().UnixNano())
	if n, err := strconv.ParseUint(os.Getenv("ENGRAM_CRASH_SEED"), 10, 64); err == nil {
		seed = n
	}
	t.Logf("seed %d (ENGRAM_CRASH_SEED=%d reproduces the kill times)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	var st crashState
	st.init()
	for kill := 1; kill <= kills; kill++ {
		srv, base := startServe(t, bin, env, rt)
		if kill > 1 {
			st.checkIndex(t, base, token, kill)
		}
		// Four agents' writers store, update and delete until the kill,
		// which comes at a random moment. Most kills wait for the first
		// acknowledged change of this run, so that a slow start (a busy
		// machine, the guard's tables built on the first write) cannot
		// leave every kill before any write; one in four comes while the
		// server may still be starting its first write.
		ctx, stop := context.WithCancel(context.Background())
		acked := make(chan struct{})
		var ackOnce sync.Once
		st.onAck = func() { ackOnce.Do(func() { close(acked) }) }
		var wg sync.WaitGroup
		for w := range 4 {
			wrng := rand.New(rand.NewPCG(seed+uint64(kill*10+w), 1))
			wg.Go(func() { st.write(ctx, wrng, base, token, kill, w) })
		}
		if rng.IntN(4) != 0 {
			select {
			case <-acked:
			case <-time.After(2 * time.Minute):
				t.Fatalf("kill %d: the server acknowledged no change in 2 minutes", kill)
			}
		}
		// Not a wait: the kill's random moment among the writes is the
		// point of the harness.
		time.Sleep(time.Duration(20+rng.IntN(300)) * time.Millisecond)
		if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		srv.Wait()
		stop()
		wg.Wait()
		os.Remove(filepath.Join(rt, "engram", "engram.addr")) // a killed server cannot remove it
		if out := run("doctor"); !strings.Contains(out, "memories:") || strings.Contains(out, "PROBLEM") {
			t.Fatalf("kill %d: doctor says\n%s", kill, out)
		}
		run("audit", "verify")
		listCmd := exec.Command(bin, "memory", "list", "--json")
		listCmd.Env = env
		raw, err := listCmd.Output()
		if err != nil {
			t.Fatalf("kill %d: memory list: %v", kill, err)
		}
		var list struct {
			Memories []struct{ ID, Content string } `json:"memories"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			t.Fatal(err)
		}
		stored := map[string]string{}
		for _, m := range list.Memories {
			stored[m.ID] = m.Content
		}
		st.check(t, kill, stored)
	}
	t.Logf("%d kills; %d stores, %d updates and %d deletes acknowledged; every one held after every kill, nothing half-applied",
		kills, st.stores, st.updates, st.deletes)
	// A run in which the server acknowledged nothing has checked nothing.
	if st.stores == 0 || st.updates == 0 || st.deletes == 0 {
		t.Fatalf("the server acknowledged %d stores, %d updates and %d deletes in %d kills; the harness needs some of each to check anything",
			st.stores, st.updates, st.deletes, kills)
	}
}

// crashState is what the writers were told: acknowledged contents are
// certain; a request cut by the kill leaves either outcome possible.
type crashState struct {
	mu                       sync.Mutex
	want                     map[string][]string // id -> allowed contents ("" allows absence)
	attempted                map[string]bool     // every content ever sent
	stores, updates, deletes int
	onAck                    func() // called (under mu) on each acknowledged change
}

func (st *crashState) init() {
	st.want, st.attempted = map[string][]string{}, map[string]bool{}
}

func (st *crashState) ack() {
	if st.onAck != nil {
		st.onAck()
	}
}

// certain returns a memory id whose state is known, if there is one.
func (st *crashState) certain(rng *rand.Rand, prefix string) (string, string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for id, allowed := range st.want {
		if len(allowed) == 1 && allowed[0] != "" && strings.HasPrefix(allowed[0], prefix) && rng.IntN(3) == 0 {
			return id, allowed[0]
		}
	}
	return "", ""
}

func (st *crashState) write(ctx context.Context, rng *rand.Rand, base, token string, kill, w int) {
	prefix := fmt.Sprintf("crash %d writer %d ", kill, w)
	for i := 0; ctx.Err() == nil; i++ {
		switch op := rng.IntN(10); {
		case op < 7:
			content := fmt.Sprintf("%snote %d", prefix, i)
			st.mu.Lock()
			st.attempted[content] = true
			st.mu.Unlock()
			var r struct {
				Status string
				Memory struct{ ID string }
			}
			if code := call(base, token, "POST", "/v1/memories", map[string]any{"content": content, "field": "learnings"}, &r); code == 200 && r.Status == "ok" && r.Memory.ID != "" {
				st.mu.Lock()
				st.want[r.Memory.ID] = []string{content}
				st.stores++
				st.ack()
				st.mu.Unlock()
			}
		case op < 9:
			id, old := st.certain(rng, prefix)
			if id == "" {
				continue
			}
			content := old + " revised"
			st.mu.Lock()
			st.attempted[content] = true
			st.want[id] = []string{old, content} // until acknowledged
			st.mu.Unlock()
			var r struct{ Status string }
			if code := call(base, token, "PATCH", "/v1/memories/"+id, map[string]any{"content": content}, &r); code == 200 {
				st.mu.Lock()
				st.want[id] = []string{content}
				st.updates++
				st.ack()
				st.mu.Unlock()
			}
		default:
			id, old := st.certain(rng, prefix)
			if id == "" {
				continue
			}
			st.mu.Lock()
			st.want[id] = []string{old, ""}
			st.mu.Unlock()
			var r struct{ Status string }
			if code := call(base, token, "DELETE", "/v1/memories/"+id, nil, &r); code == 200 {
				st.mu.Lock()
				st.want[id] = []string{""}
				st.deletes++
				st.ack()
				st.mu.Unlock()
			}
		}
	}
}

// check compares the vault after a kill with what the writers were told.
func (st *crashState) check(t *testing.T, kill int, stored map[string]string) {
	t.Helper()
	for id, allowed := range st.want {
		got, ok := stored[id]
		if !ok {
			got = ""
		}
		if !slices.Contains(allowed, got) {
			t.Fatalf("kill %d: memory %s is %q (present %v), want one of %q", kill, id, got, ok, allowed)
		}
		if len(allowed) > 1 { // the outcome is known now
			st.want[id] = []string{got}
		}
	}
	for id, content := range stored {
		if strings.HasPrefix(content, "crash ") && !st.attempted[content] {
			t.Fatalf("kill %d: memory %s holds %q, which no writer sent: half-applied", kill, id, content)
		}
		if _, known := st.want[id]; !known && strings.HasPrefix(content, "crash ") {
			st.want[id] = []string{content} // stored, but the reply was lost
		}
	}
}

// checkIndex recalls a few stored memories by their exact text: the
// rebuilt index must agree with the store.
func (st *crashState) checkIndex(t *testing.T, base, token string, kill int) {
	t.Helper()
	n := 0
	for id, allowed := range st.want {
		if n == 3 {
			break
		}
		if len(allowed) != 1 || allowed[0] == "" {
			continue
		}
		n++
		var r struct {
			Results []struct{ ID string } `json:"results"`
		}
		call(base, token, "POST", "/v1/recall", map[string]any{"query": allowed[0], "mode": "exact", "limit": 50}, &r)
		if !slices.ContainsFunc(r.Results, func(x struct{ ID string }) bool { return x.ID == id }) {
			t.Fatalf("kill %d: recall of %q does not find memory %s after the restart", kill, allowed[0], id)
		}
	}
}

// startServe starts engram serve on a free loopback port and returns it
// with its base URL once it says it serves there ("engram: serving on
// http://ADDR ..." on its standard error) and answers there.
func startServe(t *testing.T, bin string, env []string, rt string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Env = env
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	// Read its standard error to the end, saying the address it serves
	// on as soon as it says it; the rest is kept for a failure.
	var mu sync.Mutex
	var said strings.Builder
	serving := make(chan string, 1)
	go func() {
		defer pr.Close()
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			mu.Lock()
			said.WriteString(line + "\n")
			mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "engram: serving on http://"); ok {
				select {
				case serving <- strings.Fields(rest)[0]:
				default:
				}
			}
		}
		close(serving)
	}()
	stderr := func() string { mu.Lock(); defer mu.Unlock(); return said.String() }
	select {
	case addr, ok := <-serving:
		if !ok {
			t.Fatalf("engram serve exited before serving:\n%s", stderr())
		}
		base := "http://" + addr
		resp, err := http.Get(base + "/v1/health")
		if err != nil {
			t.Fatalf("engram serve says it serves on %s, but: %v\n%s", addr, err, stderr())
		}
		resp.Body.Close()
		if b, err := os.ReadFile(filepath.Join(rt, "engram", "engram.addr")); err != nil || strings.TrimSpace(string(b)) != addr {
			t.Fatalf("engram serve serves on %s, its runtime address file says %q (%v)", addr, b, err)
		}
		return cmd, base
	case <-time.After(30 * time.Second):
		t.Fatalf("engram serve did not start in 30 s:\n%s", stderr())
	}
	return nil, ""
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
