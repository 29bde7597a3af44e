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
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestIdleMemory measures what the desktop app holds once idle: it fills
// a vault with ENGRAM_IDLE_N memories (default 1,000; a tenth sensitive,
// the others each with a stored vector of the built-in model, so nothing is embedded
// while it measures), puts its key in the OS keyring, starts the app
// under Xvfb with a tray host, waits ENGRAM_IDLE_WAIT (default 200 s: the
// app drops the embedding model two minutes after its last use, and trims
// its heap 10 s after start and then every minute) and logs
// the process's resident and private memory with a breakdown of what
// holds it, from /proc/PID/smaps. It asserts nothing about the figures:
// they are for a person to read (run it on a quiet machine, and several
// times; a build to compare with is ENGRAM_IDLE_BIN).
//
//	ENGRAM_IDLE_MEM=1 ENGRAM_IDLE_N=100000 .ci/with-keyring go test -count=1 -timeout 30m -run '^TestIdleMemory$' -v ./cmd/engram
//
// Without ENGRAM_IDLE_BIN it builds this tree as `make build` does (the
// model embedded: run `make model` first).
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

	bin := os.Getenv("ENGRAM_IDLE_BIN")
	if bin == "" {
		bin = filepath.Join(tmp, "engram")
		if out, err := exec.CommandContext(ctx, "go", "build", "-tags", "engram_model", "-o", bin, ".").CombinedOutput(); err != nil {
			t.Fatalf("build: %v\n%s", err, out)
		}
	}

	home := filepath.Join(tmp, "home")
	seeded := time.Now()
	fillIdleVault(t, home, n)
	t.Logf("%d memories seeded in %v", n, time.Since(seeded).Round(time.Second))

	display := startDesktop(t, ctx, tmp, 7)
	rt, userHome := filepath.Join(tmp, "run"), filepath.Join(tmp, "user")
	os.MkdirAll(rt, 0o700)
	os.MkdirAll(userHome, 0o700)
	env := append(os.Environ(), "DISPLAY="+display, "ENGRAM_HOME="+home, "XDG_RUNTIME_DIR="+rt,
		"HOME="+userHome, "XDG_CONFIG_HOME="+filepath.Join(userHome, ".config"), "LANG=en_US.UTF-8")
	appLog := filepath.Join(tmp, "engram.log")
	engram := start(t, ctx, env, appLog, bin)
	started := time.Now()
	defer func() {
		if t.Failed() {
			b, _ := os.ReadFile(appLog)
			t.Logf("engram's log:\n%s", b)
		}
	}()
	x := &xsession{t: t, display: display}
	x.waitWindow()
	waitFor(t, 60*time.Second, "the agent API (the vault unlocked from the keyring)", func() bool {
		_, err := os.Stat(filepath.Join(rt, "engram", "engram.addr"))
		return err == nil
	})
	t.Logf("unlocked %v after start; idle for %v", time.Since(started).Round(100*time.Millisecond), wait)
	time.Sleep(wait - time.Since(started))
	if engram.ProcessState != nil {
		t.Fatal("engram exited")
	}
	pid := engram.Process.Pid
	roll := smapsRollup(t, pid)
	t.Logf("%d memories, idle: RSS %.1f MiB, private %.1f MiB (clean %.1f, dirty %.1f), anonymous %.1f MiB, PSS %.1f MiB",
		n, mib(roll["Rss"]), mib(roll["Private_Clean"]+roll["Private_Dirty"]), mib(roll["Private_Clean"]), mib(roll["Private_Dirty"]), mib(roll["Anonymous"]), mib(roll["Pss"]))
	t.Logf("what holds it (RSS / private, MiB):\n%s", smapsBreakdown(t, pid, bin))
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
		blobs[m.ID] = recall.EncodeVector("use-lite-v2", m.ContentHash, vec)
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
