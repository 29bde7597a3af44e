package hooks_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/hooks"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

// percentiles reports the p50 and p99 of ds in milliseconds.
func percentiles(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	at := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))]) / 1e6 }
	b.ReportMetric(at(0.50), "p50-ms")
	b.ReportMetric(at(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// benchEmbedder is the built-in model when ENGRAM_MODEL_DIR names it,
// else nil (keywords only).
func benchEmbedder(b *testing.B) recall.Embedder {
	dir := os.Getenv("ENGRAM_MODEL_DIR")
	if dir == "" {
		return nil
	}
	u, err := embed.LoadUSE(dir)
	if err != nil {
		b.Fatal(err)
	}
	return u
}

// BenchmarkHook times each event answered in the hook's process, through
// a real Engram on loopback (1,000 memories, fsync on; hybrid recall with
// the built-in model when ENGRAM_MODEL_DIR names it, else keywords), and
// with nothing listening. It leaves out the process's own start, which a
// client pays on top (see README's hooks section).
//
//	ENGRAM_MODEL_DIR=… go test ./app/hooks -run '^$' -bench Hook -benchtime 200x
func BenchmarkHook(b *testing.B) {
	emb := benchEmbedder(b)
	e := startWith(b, emb)
	for i := range 1000 {
		part := vault.Internal
		if i%10 == 0 {
			part = vault.Public
		}
		e.add(fmt.Sprintf("Memory %d: service %d of the falcon project listens on port %d and deploys on %s", i, i, 8000+i, []string{"Monday", "Tuesday", "Friday"}[i%3]), part, "project:falcon")
	}
	if emb != nil {
		if err := e.svc.WaitEmbedded(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	down := &hooks.Client{Base: "http://" + l.Addr().String(), Token: "x"}
	l.Close()
	dir := b.TempDir()
	projects := []hooks.Project{{Dir: "/src/falcon", Name: "falcon"}}

	for _, srv := range []struct {
		name string
		cl   hooks.Engram
	}{{"running", e.client()}, {"not-running", down}} {
		for _, ev := range hooks.Events {
			b.Run(srv.name+"/"+string(ev), func(b *testing.B) {
				var ds []time.Duration
				state := b.TempDir()
				i := 0
				for b.Loop() {
					i++
					in := hooks.Input{SessionID: fmt.Sprintf("bench-%d", i), Cwd: "/src/falcon", Source: "startup", Prompt: "which port does service 412 listen on?"}
					if ev == hooks.PreCompact || ev == hooks.Stop || ev == hooks.SessionEnd {
						// A new session whose transcript holds one new statement.
						in.TranscriptPath = filepath.Join(dir, fmt.Sprintf("%s-%s-%d.jsonl", srv.name, ev, i))
						line := fmt.Sprintf(`{"type":"user","sessionId":"%s","uuid":"u","message":{"role":"user","content":"Remember that build %d of %s takes %d minutes on the CI runners."}}`+"\n", in.SessionID, i, ev, i%60)
						if err := os.WriteFile(in.TranscriptPath, []byte(line), 0o600); err != nil {
							b.Fatal(err)
						}
					}
					t0 := time.Now()
					hooks.Run(context.Background(), ev, in, srv.cl, hooks.Options{Agent: "claude-code", Projects: projects, Capture: true, StateDir: state})
					ds = append(ds, time.Since(t0))
				}
				percentiles(b, ds)
			})
		}
	}
}

// BenchmarkHookProcess times what a client waits for on each prompt: the
// engram-hook program started, answering UserPromptSubmit through a real
// Engram on loopback (1,000 memories, hybrid recall with the built-in
// model when ENGRAM_MODEL_DIR names it), and exited. It builds
// cmd/engram-hook first; a bare Go program's start is the floor.
//
//	ENGRAM_MODEL_DIR=… go test ./app/hooks -run '^$' -bench HookProcess -benchtime 300x
func BenchmarkHookProcess(b *testing.B) {
	bin := filepath.Join(b.TempDir(), "engram-hook")
	build := exec.Command("go", "build", "-o", bin, "github.com/engram-app/engram/cmd/engram-hook")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	emb := benchEmbedder(b)
	e := startWith(b, emb)
	for i := range 1000 {
		e.add(fmt.Sprintf("Memory %d: service %d of the falcon project listens on port %d", i, i, 8000+i), vault.Public, "project:falcon")
	}
	if emb != nil {
		if err := e.svc.WaitEmbedded(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	home := b.TempDir()
	var ds []time.Duration
	i := 0
	for b.Loop() {
		i++
		cmd := exec.Command(bin, "UserPromptSubmit", "--url", e.base, "--project", "/src/falcon=falcon")
		cmd.Env = []string{"ENGRAM_TOKEN=" + e.token, "ENGRAM_HOME=" + home, "HOME=" + home}
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":"bench-%d","cwd":"/src/falcon","hook_event_name":"UserPromptSubmit","prompt":"which port does service %d listen on?"}`, i, i%1000))
		t0 := time.Now()
		out, err := cmd.Output()
		ds = append(ds, time.Since(t0))
		if err != nil || !strings.Contains(string(out), "additionalContext") {
			b.Fatalf("engram-hook: %v, %s", err, out)
		}
	}
	percentiles(b, ds)
}
