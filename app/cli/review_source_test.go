package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/cli"
	"github.com/engram-app/engram/vault"
	"github.com/engram-app/engram/vault/vaulttest"
)

// TestAgentReviewForwarded: engram agent review asks before it holds
// anything, on the user's terminal also when a running Engram runs it,
// and says and does the same there as offline: the list and the count,
// no without a terminal or on any answer but yes, the hold on yes.
func TestAgentReviewForwarded(t *testing.T) {
	root := t.TempDir()
	offline := &side{name: "offline", home: filepath.Join(root, "a"), runtime: filepath.Join(root, "run-a"), cwd: filepath.Join(root, "cwd-a"), ids: map[string]string{}}
	hosted := &side{name: "forwarded", home: filepath.Join(root, "b"), runtime: filepath.Join(root, "run-b"), cwd: filepath.Join(root, "cwd-b"), ids: map[string]string{}}
	o := cli.Options{Getenv: func(k string) string {
		return map[string]string{"ENGRAM_HOME": offline.home, "ENGRAM_PASSPHRASE": testPass, "ENGRAM_NO_KEYRING": "1"}[k]
	}, KDF: vaulttest.KDF, Now: forwardClock}
	if code := cli.Run(context.Background(), []string{"init"}, o); code != 0 {
		t.Fatalf("init = %d", code)
	}
	v, err := vault.Open(filepath.Join(offline.home, app.VaultFile), vault.Options{Now: forwardClock})
	if err != nil {
		t.Fatal(err)
	}
	svc, err := app.New(v, app.Options{Now: forwardClock})
	if err != nil {
		t.Fatal(err)
	}
	cursor := app.Request{Caller: app.Caller{Agent: "cursor", Session: "s1"}, Authorized: true}
	for _, c := range []string{"the kiwi deploy runs at noon", "the kiwi cluster has three nodes"} {
		if r := svc.Store(context.Background(), cursor, app.StoreInput{Content: c}); !r.OK() {
			t.Fatal(r.Response)
		}
	}
	svc.Close()
	v.Close()
	for _, d := range []string{hosted.home, offline.cwd, hosted.cwd} {
		os.MkdirAll(d, 0o700)
	}
	raw, err := os.ReadFile(filepath.Join(offline.home, app.VaultFile))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(hosted.home, app.VaultFile), raw, 0o600)
	runningEngram(t, hosted.home, hosted.runtime, nil)

	steps := []struct {
		fstep
		want string // in standard output or error
	}{
		{fstep{args: []string{"agent", "review", "cursor", "--dry-run"}}, "cursor: 2 live memories would be held for your review (2 written by it)"},
		{fstep{args: []string{"agent", "review", "cursor"}, code: 2}, "no terminal to confirm on: pass --yes"},
		{fstep{args: []string{"agent", "review", "cursor"}, terminal: true, answers: []string{""}, code: 1}, "not confirmed; nothing was moved"},
		{fstep{args: []string{"agent", "review", "cursor"}, terminal: true, answers: []string{"nope"}, code: 1}, "not confirmed; nothing was moved"},
		{fstep{args: []string{"memory", "list"}}, "the kiwi cluster has three nodes"},
		{fstep{args: []string{"agent", "review", "cursor"}, terminal: true, answers: []string{"y"}}, "cursor: 2 memories held for your review"},
		{fstep{args: []string{"quarantine", "list"}, unordered: true}, "held for review: cursor found unreliable; written by it"},
		{fstep{args: []string{"agent", "review", "cursor", "--json"}}, `"source": "cursor"`},
		{fstep{args: []string{"agent", "review", "nobody", "--session", "bad session"}, code: 2}, "is not a session id Engram keeps"},
	}
	for i, st := range steps {
		forwardNow.Store(int64(i+1) * int64(100_000_000))
		name := fmt.Sprintf("%02d %s", i, strings.Join(st.args, " "))
		want := offline.run(t, st.fstep)
		got := hosted.run(t, st.fstep)
		if want.code != st.code || !strings.Contains(want.stdout+want.stderr, st.want) {
			t.Errorf("%s: offline exit %d, want %d with %q\nstdout %s\nstderr %s", name, want.code, st.code, st.want, want.stdout, want.stderr)
		}
		if got != want {
			t.Errorf("%s: forwarded differs from offline\nforwarded: exit %d, prompts %q\nstdout:\n%s\nstderr:\n%s\noffline: exit %d, prompts %q\nstdout:\n%s\nstderr:\n%s",
				name, got.code, got.prompts, got.stdout, got.stderr, want.code, want.prompts, want.stdout, want.stderr)
		}
		if st.terminal && !strings.Contains(want.prompts, "Hold 2 memories for your review?") {
			t.Errorf("%s: prompts %q", name, want.prompts)
		}
	}
}
