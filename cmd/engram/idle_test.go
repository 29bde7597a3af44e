package main

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestIdleMemory measures what the desktop app holds once idle, against
// a bare Fyne window with a list of as many rows (internal/idlebare) run
// beside it under the same Xvfb: it fills a vault with ENGRAM_IDLE_N
// memories (default 1,000; a tenth sensitive, the others each with a
// stored vector of the built-in model, so nothing is embedded while it
// measures), puts its key in the OS keyring, starts both under Xvfb with a
// tray host, waits ENGRAM_IDLE_WAIT (default 200 s: the app drops the
// embedding model two minutes after its last use, and trims its heap 10 s
// after start and then every minute) and logs each process's resident and
// proportional memory from /proc/PID/smaps_rollup, Engram's excess over
// the bare window, and a breakdown of what holds it from /proc/PID/smaps.
// It asserts nothing about the figures: they are for a person to read (run
// it on a quiet machine, and several times). The goal (issue 36) is an
// RSS at most 40 MiB above the bare window's at 1,000 memories and 250
// MiB at 100,000.
//
//	ENGRAM_IDLE_MEM=1 ENGRAM_IDLE_N=100000 .ci/with-keyring go test -count=1 -timeout 30m -run '^TestIdleMemory$' -v ./cmd/engram
//
// Without ENGRAM_IDLE_BIN it builds this tree as `make build` does (the
// model embedded: run `make model` first; emoji from the system's fonts),
// and the bare window with Fyne as it comes, each with the extra build
// tags in ENGRAM_IDLE_TAGS. ENGRAM_IDLE_ALSO lists other builds to run beside it
// as space-separated NAME=PATH (each with its own copy of the vault), to
// compare builds in one run.
//
// With ENGRAM_IDLE_PROFILE=DIR the builds it makes carry the tag
// engram_idleprof and, once measured, every process (the others too, if
// built with that tag) writes its Go heap profile (after a collection)
// into DIR as NAME.heap, with the top of each (go tool pprof -top
// -inuse_space) and the runtime's account of its memory in the log.
func TestIdleMemory(t *testing.T) {
	if os.Getenv("ENGRAM_IDLE_MEM") == "" {
		t.Skip("measures the desktop app's idle memory with ENGRAM_IDLE_MEM=1, under .ci/with-keyring")
	}
	needDesktop(t)
	n := 1000
	if s := os.Getenv("ENGRAM_IDLE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("ENGRAM_IDLE_N: %v", err)
		}
	}
	wait := 200 * time.Second
	if s := os.Getenv("ENGRAM_IDLE_WAIT"); s != "" {
		var err error
		if wait, err = time.ParseDuration(s); err != nil {
			t.Fatalf("ENGRAM_IDLE_WAIT: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 25*time.Minute)
	defer cancel()
	tmp := t.TempDir()

	profDir := os.Getenv("ENGRAM_IDLE_PROFILE")
	tags := ""
	if profDir != "" {
		tags += ",engram_idleprof"
	}
	if extra := os.Getenv("ENGRAM_IDLE_TAGS"); extra != "" {
		tags += "," + extra
	}
	build := func(out, pkg, tags string) {
		t.Helper()
		if b, err := exec.CommandContext(ctx, "go", "build", "-tags", strings.Trim(tags, ","), "-o", out, pkg).CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", pkg, err, b)
		}
	}
	procs := []*idleProc{{name: "engram", bin: os.Getenv("ENGRAM_IDLE_BIN")}}
	if procs[0].bin == "" {
		procs[0].bin = filepath.Join(tmp, "engram")
		build(procs[0].bin, ".", "engram_model,no_emoji"+tags) // as make build
	}
	for _, other := range strings.Fields(os.Getenv("ENGRAM_IDLE_ALSO")) {
		name, path, ok := strings.Cut(other, "=")
		if !ok || name == "" || name == "engram" || name == "bare" {
			t.Fatalf("ENGRAM_IDLE_ALSO: %q is not NAME=PATH (NAME neither engram nor bare)", other)
		}
		procs = append(procs, &idleProc{name: name, bin: path})
	}
	bare := &idleProc{name: "bare", bin: filepath.Join(tmp, "idlebare"), args: []string{strconv.Itoa(n)}}
	build(bare.bin, "./internal/idlebare", tags) // Fyne as it comes, its emoji font bundled
	procs = append(procs, bare)

	home := filepath.Join(tmp, "home")
	seeded := time.Now()
	fillIdleVault(t, home, n)
	t.Logf("%d memories seeded in %v", n, time.Since(seeded).Round(time.Second))
	vaultFile, err := os.ReadFile(filepath.Join(home, "vault.db"))
	if err != nil {
		t.Fatal(err)
	}

	display := startDesktop(t, ctx, tmp, 7)
	started := time.Now()
	for _, p := range procs {
		dir := filepath.Join(tmp, "proc-"+p.name)
		p.home, p.rt = filepath.Join(dir, "home"), filepath.Join(dir, "run")
		userHome := filepath.Join(dir, "user")
		for _, d := range []string{p.home, p.rt, userHome} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if p != bare {
			if err := os.WriteFile(filepath.Join(p.home, "vault.db"), vaultFile, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		env := append(os.Environ(), "DISPLAY="+display, "ENGRAM_HOME="+p.home, "XDG_RUNTIME_DIR="+p.rt,
			"HOME="+userHome, "XDG_CONFIG_HOME="+filepath.Join(userHome, ".config"), "LANG=en_US.UTF-8")
		if profDir != "" {
			env = append(env, "ENGRAM_IDLE_HEAPPROF="+filepath.Join(profDir, p.name+".heap"))
		}
		p.log = filepath.Join(dir, "log")
		p.cmd = start(t, ctx, env, p.log, p.bin, p.args...)
	}
	defer func() {
		if t.Failed() {
			for _, p := range procs {
				b, _ := os.ReadFile(p.log)
				t.Logf("%s's log:\n%s", p.name, b)
			}
		}
	}()
	x := &xsession{t: t, display: display}
	x.waitWindow()
	for _, p := range procs[:len(procs)-1] {
		waitFor(t, 60*time.Second, p.name+"'s agent API (the vault unlocked from the keyring)", func() bool {
			_, err := os.Stat(filepath.Join(p.rt, "engram", "engram.addr"))
			return err == nil
		})
	}
	t.Logf("unlocked %v after start; idle for %v", time.Since(started).Round(100*time.Millisecond), wait)
	time.Sleep(wait - time.Since(started))
	rolls := map[string]map[string]int64{}
	for _, p := range procs {
		if p.cmd.ProcessState != nil {
			t.Fatalf("%s exited", p.name)
		}
		pid := p.cmd.Process.Pid
		roll := smapsRollup(t, pid)
		rolls[p.name] = roll
		t.Logf("%s, %d memories, idle: RSS %.1f MiB, PSS %.1f MiB, private %.1f MiB (clean %.1f, dirty %.1f), anonymous %.1f MiB",
			p.name, n, mib(roll["Rss"]), mib(roll["Pss"]), mib(roll["Private_Clean"]+roll["Private_Dirty"]), mib(roll["Private_Clean"]), mib(roll["Private_Dirty"]), mib(roll["Anonymous"]))
		t.Logf("what holds it (RSS / private, MiB):\n%s", smapsBreakdown(t, pid, p.bin))
	}
	b := rolls["bare"]
	for _, p := range procs[:len(procs)-1] {
		e := rolls[p.name]
		t.Logf("%s above the bare window: RSS %+.1f MiB, PSS %+.1f MiB, anonymous %+.1f MiB (goal: RSS at most +40 MiB at 1,000 memories, +250 at 100,000)",
			p.name, mib(e["Rss"]-b["Rss"]), mib(e["Pss"]-b["Pss"]), mib(e["Anonymous"]-b["Anonymous"]))
	}
	if profDir != "" {
		idleProfiles(t, profDir, procs)
	}
}

// idleProc is one process TestIdleMemory measures.
type idleProc struct {
	name, bin, log string
	args           []string
	home, rt       string
	cmd            *exec.Cmd
}

// idleProfiles asks each process for its heap profile (SIGUSR1, see
// internal/idleprof) and logs the top of its in-use space and the
// runtime's account of its heap.
func idleProfiles(t *testing.T, dir string, procs []*idleProc) {
	t.Helper()
	for _, p := range procs {
		path := filepath.Join(dir, p.name+".heap")
		os.Remove(path)
		if err := p.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(20 * time.Second)
		for _, err := os.Stat(path); err != nil; _, err = os.Stat(path) {
			if time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
		if _, err := os.Stat(path); err != nil {
			t.Logf("%s wrote no heap profile (built without the tag engram_idleprof?)", p.name)
			continue
		}
		out, err := exec.Command("go", "tool", "pprof", "-top", "-sample_index=inuse_space", path).CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %s: %v\n%s", path, err, out)
		}
		lines := strings.SplitN(string(out), "\n", 40)
		stats, _ := os.ReadFile(path + ".txt")
		t.Logf("%s's Go heap in use (%s):\n%s\nthe runtime's account, before the collection:\n%s", p.name, path, strings.Join(lines[:len(lines)-1], "\n"), stats)
	}
}

// idleWords are the words the seeded memories are made of.
var idleWords = strings.Fields(`the team deploy service build release staging production database migration
cache timeout retry queue worker cron backup restore review pull request branch main test flaky lint format
config secret token rotate certificate domain proxy gateway latency alert on-call rotation runbook incident
postmortem owner budget quarter roadmap feature flag rollout canary metrics dashboard logging tracing error
python golang typescript rust docker kubernetes helm terraform ansible postgres redis kafka nginx grafana
prefers tabs spaces indentation naming convention commit message changelog version semver api schema client
user meeting monday tuesday friday weekly standup demo customer support ticket priority bug fix regression`)

// fillIdleVault writes a vault of n memories into home/vault.db with a
// random unit vector for each, as the built-in model would have stored,
// and remembers its key in the OS keyring.
func fillIdleVault(t *testing.T, home string, n int) {
	t.Helper()
	v, _ := vaulttest.New(t, vaulttest.NoSync, vaulttest.SkipCheck)
	r := rand.New(rand.NewPCG(1, 2))
	const dim = 512
	// The name the built-in model's vectors are stored under: a blob of
	// another name is stale, and the app would embed every memory again
	// while it is measured.
	model := recall.New(recall.DefaultConfig(&idleEmbedder{})).Model()
	blobs := map[string][]byte{}
	for i := range n {
		p := vault.Internal
		if i%10 == 0 {
			p = vault.Sensitive
		}
		words := make([]string, 12+r.IntN(20))
		for j := range words {
			words[j] = idleWords[r.IntN(len(idleWords))]
		}
		text := fmt.Sprintf("%s (note %d)", strings.Join(words, " "), i)
		m, err := v.Add(vaulttest.Memory(p, text), vault.Actor{Agent: vault.AgentOperator})
		if err != nil {
			t.Fatal(err)
		}
		if p == vault.Sensitive {
			continue // never embedded
		}
		vec := make([]float32, dim)
		var norm float32
		for j := range vec {
			vec[j] = float32(r.NormFloat64())
			norm += vec[j] * vec[j]
		}
		for j := range vec {
			vec[j] /= float32(math.Sqrt(float64(norm)))
		}
		blobs[m.ID] = recall.EncodeVector(model, m.ContentHash, dim, vec)
		if len(blobs) == 1000 {
			if err := v.PutVectors(blobs); err != nil {
				t.Fatal(err)
			}
			clear(blobs)
		}
	}
	if err := v.PutVectors(blobs); err != nil {
		t.Fatal(err)
	}
	// Any free port: another Engram on this machine may hold the default.
	if err := v.SetSettings([]byte(`{"addr":"127.0.0.1:0"}`), vault.Actor{Agent: vault.AgentOperator}); err != nil {
		t.Fatal(err)
	}
	if err := app.Remember(v, app.OSKeyring{}); err != nil {
		t.Fatalf("the key into the OS keyring: %v", err)
	}
	src := v.Path()
	v.Close()
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, filepath.Join(home, "vault.db")); err != nil {
		t.Fatal(err)
	}
	checkNothingToEmbed(t, filepath.Join(home, "vault.db"))
}

// checkNothingToEmbed starts recall over a copy of the vault at path, as
// the app does, with an embedder named as the built-in model, and fails
// the test if the start-up embeds anything: the app must find every
// memory's vector stored, or it would be embedding while it is measured.
func checkNothingToEmbed(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "check.db")
	if err := os.WriteFile(cp, b, 0o600); err != nil {
		t.Fatal(err)
	}
	v, err := vault.Open(cp, vault.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	emb := &idleEmbedder{}
	s, err := app.New(v, app.Options{Recall: recall.New(recall.DefaultConfig(emb))})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.WaitEmbedded(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := emb.texts.Load(); n > 0 {
		t.Fatalf("the seeded vault's stored vectors are not the built-in model's: start-up embedded %d texts", n)
	}
}

// idleEmbedder stands for the built-in model's name (app/embed's useName)
// and dimension, and counts what it is asked to embed.
type idleEmbedder struct{ texts atomic.Int64 }

func (*idleEmbedder) Name() string { return "use-lite-v2" }
func (*idleEmbedder) Dim() int     { return 512 }
func (e *idleEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	e.texts.Add(int64(len(texts)))
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = make([]float32, 512)
		out[i][i%512] = 1
	}
	return out, nil
}

func mib(kb int64) float64 { return float64(kb) / 1024 }

// smapsRollup reads /proc/PID/smaps_rollup's fields, in kB.
func smapsRollup(t *testing.T, pid int) map[string]int64 {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[2] == "kB" {
			v, _ := strconv.ParseInt(fields[1], 10, 64)
			out[strings.TrimSuffix(fields[0], ":")] = v
		}
	}
	return out
}

// smapsBreakdown sums /proc/PID/smaps by what each mapping is: the Go
// heap and other anonymous memory, the binary, the software OpenGL stack
// (Mesa, LLVM), other libraries, the vault file, fonts and the rest.
func smapsBreakdown(t *testing.T, pid int, bin string) string {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type sum struct{ rss, private int64 }
	groups := map[string]*sum{}
	cur := ""
	binName := filepath.Base(bin)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			name := ""
			if len(fields) >= 6 {
				name = strings.Join(fields[5:], " ")
			}
			cur = idleGroup(name, binName)
			if groups[cur] == nil {
				groups[cur] = &sum{}
			}
			continue
		}
		if len(fields) == 3 && fields[2] == "kB" {
			v, _ := strconv.ParseInt(fields[1], 10, 64)
			switch fields[0] {
			case "Rss:":
				groups[cur].rss += v
			case "Private_Clean:", "Private_Dirty:":
				groups[cur].private += v
			}
		}
	}
	names := make([]string, 0, len(groups))
	for k := range groups {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return int(groups[b].rss - groups[a].rss) })
	var b strings.Builder
	for _, k := range names {
		if g := groups[k]; g.rss >= 256 {
			fmt.Fprintf(&b, "  %-40s %7.1f %7.1f\n", k, mib(g.rss), mib(g.private))
		}
	}
	return b.String()
}

func idleGroup(name, bin string) string {
	base := filepath.Base(name)
	switch {
	case name == "":
		return "anonymous (Go heap, C heap, stacks)"
	case name == "[heap]":
		return "[heap] (C malloc)"
	case strings.HasPrefix(name, "["):
		return name
	case base == bin:
		return "the engram binary"
	case strings.HasSuffix(name, "vault.db"):
		return "the vault file (mmap)"
	case strings.Contains(base, "LLVM"):
		return "libLLVM (Mesa's software GL)"
	case strings.Contains(name, "/dri/") || strings.Contains(base, "gallium") || strings.Contains(base, "libGL") || strings.Contains(base, "mesa") || strings.Contains(base, "libglapi"):
		return "Mesa, GL"
	case strings.Contains(name, "fonts") || strings.HasSuffix(base, ".ttf") || strings.HasSuffix(base, ".otf"):
		return "font files"
	case strings.Contains(base, ".so"):
		return "other shared libraries"
	}
	return "other files"
}
