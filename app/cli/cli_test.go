package cli_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/cli"
	"github.com/engram-app/engram/app/hooks"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// testOptions are the real program's options with a cheap KDF and scrypt
// work factor, and no terminal: tests give passphrases through the
// environment.
func testOptions() cli.Options {
	o := cli.Default()
	o.KDF = vaulttest.KDF
	o.BackupWorkFactor = 10
	o.Prompt = nil
	return o
}

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"engram": func() {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			code := cli.Run(ctx, os.Args[1:], testOptions())
			stop()
			os.Exit(code)
		},
		"engram-hook": func() { // cmd/engram-hook
			hooks.Main(context.Background(), os.Args[1:], hooks.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Token: hooks.StoredToken(os.Getenv)})
			os.Exit(0)
		},
	})
}

// keyringAvailable reports whether the tests run inside a D-Bus session
// with an unlocked secret service (.ci/run arranges it).
func keyringAvailable() bool {
	return os.Getenv("ENGRAM_TEST_KEYRING") == "1" && os.Getenv("DBUS_SESSION_BUS_ADDRESS") != ""
}

func TestScripts(t *testing.T) {
	if os.Getenv("CI") != "" && !keyringAvailable() {
		t.Fatal("CI must run these tests inside dbus-run-session with gnome-keyring (ENGRAM_TEST_KEYRING=1); see .ci/run")
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("ENGRAM_HOME", e.WorkDir+"/engram")
			e.Setenv("XDG_RUNTIME_DIR", e.WorkDir+"/run")
			e.Setenv("LANG", "C.UTF-8")
			if keyringAvailable() {
				e.Setenv("DBUS_SESSION_BUS_ADDRESS", os.Getenv("DBUS_SESSION_BUS_ADDRESS"))
			}
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if cond == "keyring" {
				return keyringAvailable(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"holdvault":     holdVault,
			"corruptrecord": corruptRecord,
			"corruptcopies": corruptCopies,
			"flipbyte":      flipByte,
			"flipintext":    flipInText,
			"damagemeta":    damageMeta,
			"truncatefile":  truncateFile,
			"agentstore":    agentStore,
			"waitserver":    waitServer,
			"deadaddr":      deadAddr,
			"pair":          pairCmd,
			"agentrecall":   agentRecall,
			"agentfind":     agentFind,
		},
	})
}

// holdvault PATH: open the vault at PATH in this process until the script
// ends, as a running Engram would.
func holdVault(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: holdvault PATH")
	}
	v, err := vault.Open(ts.MkAbs(args[0]), vault.Options{})
	ts.Check(err)
	ts.Defer(func() { v.Close() })
}

// corruptrecord FILE IDFILE: flip one byte inside the sealed record of the
// memory whose id IDFILE holds, in a closed vault file. The record is found
// as the key followed by the sealed envelope byte: bbolt stores a leaf's
// key and value side by side.
func corruptRecord(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: corruptrecord FILE IDFILE")
	}
	path := ts.MkAbs(args[0])
	id := bytes.TrimSpace([]byte(ts.ReadFile(args[1])))
	raw, err := os.ReadFile(path)
	ts.Check(err)
	i := bytes.Index(raw, append(id, 0x02))
	if i < 0 {
		ts.Fatalf("no sealed record for %s in %s", id, path)
	}
	raw[i+len(id)+30] ^= 0x20
	ts.Check(os.WriteFile(path, raw, 0o600))
}

// corruptcopies FILE IDFILE: as corruptrecord, in every copy of the sealed
// record (bbolt's free pages keep older copies), so salvage cannot find an
// intact one.
func corruptCopies(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: corruptcopies FILE IDFILE")
	}
	path := ts.MkAbs(args[0])
	id := bytes.TrimSpace([]byte(ts.ReadFile(args[1])))
	raw, err := os.ReadFile(path)
	ts.Check(err)
	n := 0
	for off := 0; ; n++ {
		i := bytes.Index(raw[off:], append(id, 0x02))
		if i < 0 {
			break
		}
		raw[off+i+len(id)+30] ^= 0x20
		off += i + len(id)
	}
	if n == 0 {
		ts.Fatalf("no sealed record for %s in %s", id, path)
	}
	ts.Check(os.WriteFile(path, raw, 0o600))
}

// flipbyte FILE OFFSET: flip the low bit of the byte at OFFSET (negative
// counts from the end).
func flipByte(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: flipbyte FILE OFFSET")
	}
	path := ts.MkAbs(args[0])
	raw, err := os.ReadFile(path)
	ts.Check(err)
	off, err := strconv.Atoi(args[1])
	ts.Check(err)
	if off < 0 {
		off += len(raw)
	}
	raw[off] ^= 1
	ts.Check(os.WriteFile(path, raw, 0o600))
}

// flipintext FILE TEXT: flip one bit of the last byte of every copy of
// TEXT in FILE (a plain record's content; free pages may hold old copies).
func flipInText(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: flipintext FILE TEXT")
	}
	path := ts.MkAbs(args[0])
	raw, err := os.ReadFile(path)
	ts.Check(err)
	n := 0
	for off := 0; ; n++ {
		i := bytes.Index(raw[off:], []byte(args[1]))
		if i < 0 {
			break
		}
		raw[off+i+len(args[1])-1] ^= 0x01
		off += i + len(args[1])
	}
	if n == 0 {
		ts.Fatalf("%q is not in %s", args[1], path)
	}
	ts.Check(os.WriteFile(path, raw, 0o600))
}

// damagemeta FILE: flip a byte of the root pointer in both of bbolt's
// meta pages, so neither checksum matches and bbolt cannot open the file.
// The page size is read from meta page 0 (bbolt stores it in native order).
func damageMeta(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: damagemeta FILE")
	}
	path := ts.MkAbs(args[0])
	raw, err := os.ReadFile(path)
	ts.Check(err)
	ps := int(binary.NativeEndian.Uint32(raw[16+8:]))
	raw[16+16] ^= 1
	raw[ps+16+16] ^= 1
	ts.Check(os.WriteFile(path, raw, 0o600))
}

// truncatefile FILE SIZE: cut FILE to SIZE bytes.
func truncateFile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: truncatefile FILE SIZE")
	}
	n, err := strconv.Atoi(args[1])
	ts.Check(err)
	ts.Check(os.Truncate(ts.MkAbs(args[0]), int64(n)))
}

// agentstore VAULT AGENT SOURCE TEXT: store TEXT through the memory service
// as agent AGENT with source type SOURCE, as the loopback API would, and
// print the response status and queue id.
func agentStore(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 4 {
		ts.Fatalf("usage: agentstore VAULT AGENT SOURCE TEXT [TEXT...]")
	}
	v, err := vault.Open(ts.MkAbs(args[0]), vault.Options{})
	ts.Check(err)
	defer v.Close()
	if len(args) > 4 {
		// A split order's second half is queued sealed: Engram runs
		// unlocked when agents write.
		ts.Check(v.Unlock(context.Background(), []byte(ts.Getenv("ENGRAM_PASSPHRASE"))))
	}
	s, err := app.New(v, app.Options{})
	ts.Check(err)
	// Each further text is written in a new session of the same agent.
	for i, text := range args[3:] {
		session := "test"
		if i > 0 {
			session = fmt.Sprintf("test-%d", i+1)
		}
		req := app.Request{Caller: app.Caller{Agent: args[1], Session: session}, Authorized: true}
		r := s.Store(context.Background(), req, app.StoreInput{Content: text, Source: vault.Source{Type: vault.SourceType(args[2])}})
		fmt.Fprintf(ts.Stdout(), "%s %s\n", r.Status, r.QueueID)
	}
}

// deadaddr: write the address of a loopback port nothing listens on as
// the running Engram's, so that a command finds no Engram there whatever
// else runs on this machine (another Engram on the default port).
func deadAddr(ts *testscript.TestScript, neg bool, args []string) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	addr := l.Addr().String()
	l.Close()
	dir := filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), "engram")
	ts.Check(os.MkdirAll(dir, 0o700))
	ts.Check(os.WriteFile(filepath.Join(dir, "engram.addr"), []byte(addr+"\n"), 0o600))
}

// waitserver: wait until engram serve (started in the background) has
// written its address to the runtime directory and answers there (a
// file left by deadaddr names an address where nothing answers). The
// script's background process tells nothing else while it runs, so this
// looks every 10 ms, for up to a minute (a loaded machine starts it
// slowly).
func waitServer(ts *testscript.TestScript, neg bool, args []string) {
	path := filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), "engram", "engram.addr")
	answers := func() bool {
		b, err := os.ReadFile(path)
		if err != nil || len(bytes.TrimSpace(b)) == 0 {
			return false
		}
		resp, err := http.Get("http://" + strings.TrimSpace(string(b)) + "/v1/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !answers() {
		select {
		case <-tick.C:
		case <-deadline.C:
			ts.Fatalf("engram serve did not answer at the address in %s within a minute", path)
		}
	}
}

// pair request NAME | pair poll NAME: an agent's side of pairing, against
// the running server; request saves the secret in NAME.secret, poll prints
// the status and any token.
func pairCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: pair request|poll NAME")
	}
	addr, err := os.ReadFile(filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), "engram", "engram.addr"))
	ts.Check(err)
	body := map[string]string{"name": args[1]}
	path := "/v1/pair"
	if args[0] == "poll" {
		path += "/poll"
		body["pair_secret"] = ts.ReadFile(args[1] + ".secret")
	}
	b, _ := json.Marshal(body)
	resp, err := http.Post("http://"+strings.TrimSpace(string(addr))+path, "application/json", bytes.NewReader(b))
	ts.Check(err)
	defer resp.Body.Close()
	var out map[string]any
	ts.Check(json.NewDecoder(resp.Body).Decode(&out))
	if args[0] == "request" {
		secret, _ := out["pair_secret"].(string)
		ts.Check(os.WriteFile(ts.MkAbs(args[1]+".secret"), []byte(secret), 0o600))
	}
	if token, ok := out["token"].(string); ok {
		ts.Check(os.WriteFile(ts.MkAbs(args[1]+".token"), []byte(token), 0o600))
	}
	fmt.Fprintf(ts.Stdout(), "%v %v\n", out["status"], out["token"])
}

// agentrecall NAME: recall as agent NAME (its token saved by pair poll)
// from the running server, and print the HTTP status and the service's.
func agentRecall(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: agentrecall NAME")
	}
	addr, err := os.ReadFile(filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), "engram", "engram.addr"))
	ts.Check(err)
	req, err := http.NewRequest("POST", "http://"+strings.TrimSpace(string(addr))+"/v1/recall", strings.NewReader(`{"query":"deploy"}`))
	ts.Check(err)
	req.Header.Set("Authorization", "Bearer "+ts.ReadFile(args[0]+".token"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	var out map[string]any
	ts.Check(json.NewDecoder(resp.Body).Decode(&out))
	fmt.Fprintf(ts.Stdout(), "%d %v\n", resp.StatusCode, out["status"])
}

// agentfind NAME QUERY: recall QUERY as agent NAME (its token saved by
// pair poll) from the running server, and print each result's text on a
// line of its own after "found:", or "found nothing".
func agentFind(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: agentfind NAME QUERY")
	}
	addr, err := os.ReadFile(filepath.Join(ts.Getenv("XDG_RUNTIME_DIR"), "engram", "engram.addr"))
	ts.Check(err)
	q, _ := json.Marshal(map[string]string{"query": args[1]})
	req, err := http.NewRequest("POST", "http://"+strings.TrimSpace(string(addr))+"/v1/recall", bytes.NewReader(q))
	ts.Check(err)
	req.Header.Set("Authorization", "Bearer "+ts.ReadFile(args[0]+".token"))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	ts.Check(err)
	defer resp.Body.Close()
	var out struct {
		Status  string `json:"status"`
		Results []struct {
			Content string `json:"content"`
		} `json:"results"`
	}
	ts.Check(json.NewDecoder(resp.Body).Decode(&out))
	if out.Status != "ok" {
		ts.Fatalf("recall as %s: %s", args[0], out.Status)
	}
	if len(out.Results) == 0 {
		fmt.Fprintln(ts.Stdout(), "found nothing")
	}
	for _, r := range out.Results {
		fmt.Fprintf(ts.Stdout(), "found: %s\n", r.Content)
	}
}

// TestHelpListsEverySubcommand: engram help names every subcommand of
// memory, quarantine, agent and audit (as their usage errors list them)
// and the hidden ones the README documents.
func TestHelpListsEverySubcommand(t *testing.T) {
	var help bytes.Buffer
	if code := cli.Run(context.Background(), []string{"help"}, cli.Options{Stdout: &help}); code != 0 {
		t.Fatalf("help = %d", code)
	}
	listed := func(cmd, sub string) bool {
		for _, l := range strings.Split(help.String(), "\n") {
			rest, ok := strings.CutPrefix(l, "  engram "+cmd+" ")
			if !ok {
				continue
			}
			words := strings.FieldsFunc(strings.SplitN(rest, "#", 2)[0], func(r rune) bool { return r == ' ' || r == '|' })
			if len(words) > 0 && slices.Contains(words, sub) {
				return true
			}
		}
		return false
	}
	for _, cmd := range []string{"memory", "quarantine", "agent"} {
		var stderr bytes.Buffer
		cli.Run(context.Background(), []string{cmd}, cli.Options{Stderr: &stderr})
		_, list, ok := strings.Cut(strings.SplitN(stderr.String(), "\n", 2)[0], "subcommand: ")
		if !ok {
			t.Fatalf("engram %s: no list of subcommands in %q", cmd, stderr.String())
		}
		for _, sub := range strings.Split(list, ", ") {
			if !listed(cmd, sub) {
				t.Errorf("engram help does not list 'engram %s %s'", cmd, sub)
			}
		}
	}
	for _, want := range []string{"engram sweep", "engram audit verify", "engram audit prune", "--include-forgotten", "--may-confirm", "--confirm"} {
		if !strings.Contains(help.String(), want) {
			t.Errorf("engram help does not mention %q", want)
		}
	}
}
