package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/vault"
)

func (c *cmd) initVault(args []string) error {
	fs := newFlags("init")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	noKeyring := fs.Bool("no-keyring", false, "do not remember the key in the OS keyring")
	if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
		return err
	}
	path, err := c.vaultPath()
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		return fail(exitFailed, "a vault already exists at %s", path)
	}
	pass, err := c.pass.getNew(*passFile, "ENGRAM_PASSPHRASE", "vault passphrase")
	if err != nil {
		return err
	}
	defer clear(pass)
	if hint := app.StrengthHint(pass); hint != "" {
		fmt.Fprintf(c.o.Stderr, "engram: %s\n", hint)
	}
	if c.o.KDF == (vault.KDFCost{}) {
		fmt.Fprintln(c.o.Stderr, "engram: tuning the key derivation to this machine (about a second)…")
	}
	v, err := vault.Create(c.ctx, path, pass, vault.CreateOptions{KDF: c.o.KDF, Options: vault.Options{Now: c.o.Now}})
	if err != nil {
		return err
	}
	c.v = v
	fmt.Fprintf(c.out, "created vault %s\n", path)
	if *noKeyring || c.o.Getenv("ENGRAM_NO_KEYRING") != "" {
		return printLine(c.out, "the key is not kept in the OS keyring: commands will ask for the passphrase")
	}
	if err := app.Remember(v, c.keyStore()); err != nil {
		fmt.Fprintf(c.o.Stderr, "engram: the key could not be kept in the OS keyring (%v); commands will ask for the passphrase\n", err)
		return nil
	}
	return printLine(c.out, "the key is kept in the OS keyring")
}

func (c *cmd) audit(args []string) error {
	if len(args) > 0 && args[0] == "prune" {
		fs := newFlags("audit prune")
		days := fs.Int("days", 0, "keep this many days (default $ENGRAM_AUDIT_RETENTION_DAYS, else 90)")
		l3 := fs.Bool("l3", false, "also remove L3 access records past their retention of a year (the sweep proposes it; they stay until you approve)")
		if _, err := parse(fs, args[1:], 0, 0, "no arguments"); err != nil {
			return err
		}
		keep := app.DefaultAuditRetention
		if env := c.o.Getenv("ENGRAM_AUDIT_RETENTION_DAYS"); env != "" && *days == 0 {
			n, err := strconv.Atoi(env)
			if err != nil || n < 1 {
				return usage("ENGRAM_AUDIT_RETENTION_DAYS must be a whole number of days, got %q", env)
			}
			*days = n
		}
		if *days < 0 {
			return usage("audit prune --days must be positive")
		}
		if *days > 0 {
			keep = time.Duration(*days) * 24 * time.Hour
		}
		if err := c.open(); err != nil {
			return err
		}
		prune := c.svc.PruneAudit
		if *l3 {
			prune = c.svc.PruneL3
		}
		r := prune(c.ctx, operator, c.o.Now(), keep)
		if err := fromResponse(r.Response); err != nil {
			return err
		}
		return printf(c.out, "pruned %d audit entries older than %d days; the chain still verifies from its checkpoint\n", r.Pruned, int(keep.Hours()/24))
	}
	if len(args) > 0 && args[0] == "verify" {
		if _, err := parse(newFlags("audit verify"), args[1:], 0, 0, "no arguments"); err != nil {
			return err
		}
		if err := c.open(); err != nil {
			return err
		}
		r, err := c.v.VerifyAudit()
		if err != nil {
			return err
		}
		if !r.OK() {
			for _, p := range r.Problems {
				fmt.Fprintf(c.out, "BROKEN: %s\n", p)
			}
			return fail(exitDamaged, "the audit chain is broken: %d problem(s) in %d entries", len(r.Problems), r.Entries)
		}
		return printf(c.out, "audit chain intact: %d entries (%d to %d)\n", r.Entries, r.First, r.Last)
	}
	fs := newFlags("audit")
	agent := fs.String("agent", "", "only this agent")
	field := fs.String("field", "", "only this field")
	last := fs.Int("last", 0, "only the last N entries")
	jsonOut := fs.Bool("json", false, "print JSON lines")
	if _, err := parse(fs, args, 0, 0, "no arguments (or 'verify')"); err != nil {
		return err
	}
	if err := c.open(); err != nil {
		return err
	}
	r := c.svc.Audit(c.ctx, operator, app.AuditInput{Agent: *agent, Field: vault.Field(*field), Last: *last})
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	if *jsonOut {
		for _, e := range r.Entries {
			if err := printJSONLine(c.out, e); err != nil {
				return err
			}
		}
		return nil
	}
	return printAudit(c.out, r.Entries)
}

func (c *cmd) doctor(args []string) error {
	fs := newFlags("doctor")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	salvage := fs.String("salvage", "", "recover what can be read of a damaged vault into this backup FILE")
	jsonOut := fs.Bool("json", false, "print the check and the counts of what waits as JSON (the exit code is the same)")
	if _, err := parse(fs, args, 0, 0, "no arguments (or --salvage FILE)"); err != nil {
		return err
	}
	if *salvage != "" {
		return c.salvage(*salvage, *passFile)
	}
	if err := c.open(); err != nil {
		if isDamage(err) {
			if *jsonOut {
				printJSON(c.out, doctorReport{Problems: []vault.Problem{{Where: "file", What: err.Error()}}})
			} else {
				fmt.Fprintf(c.out, "PROBLEM file: %v\n", err)
			}
			return fail(exitDamaged, "the vault file cannot be opened. Recover what can still be read with 'engram doctor --salvage FILE.age', or restore from a backup with 'engram import'")
		}
		return err
	}
	if err := c.unlock(unlockRequired, *passFile, true); err != nil {
		if !errors.Is(err, app.ErrNoPassphrase) {
			return err
		}
		fmt.Fprintf(c.o.Stderr, "engram: %v; sensitive records are not checked\n", err)
	}
	r, err := c.v.Check(c.ctx)
	if err != nil {
		return err
	}
	out := doctorReport{Vault: c.v.Path(), Report: r, Model: c.model(), Problems: r.Problems}
	if len(r.Problems) == 0 || r.Problems[0].Where != "file" {
		if w := c.svc.WaitingFor(c.ctx, operator, c.o.Now()); w.OK() {
			out.Waiting = &w.Waiting
		}
	}
	out.Healthy = r.OK()
	if out.Problems == nil {
		out.Problems = []vault.Problem{}
	}
	if *jsonOut {
		if err := printJSON(c.out, out); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(c.out, "vault: %s\n", out.Vault)
		fmt.Fprintf(c.out, "memories: %d (%d sealed), versions: %d, audit entries: %d\n", r.Memories, r.Sealed, r.Versions, r.Audit)
		fmt.Fprintf(c.out, "model: %s\n", out.Model)
		for _, p := range r.Problems {
			fmt.Fprintf(c.out, "PROBLEM %s\n", p)
		}
		if out.Waiting != nil {
			for _, l := range waitingLines(*out.Waiting) {
				fmt.Fprintf(c.out, "waiting: %s\n", l)
			}
		}
	}
	switch {
	case len(r.Problems) > 0 && r.Problems[0].Where == "file":
		return fail(exitDamaged, "the vault file's structure is damaged. Recover what can still be read with 'engram doctor --salvage FILE.age', or restore from a backup with 'engram import'")
	case len(r.Problems) > 0:
		return fail(exitDamaged, "the vault has %d problem(s); the records named above cannot be trusted. Other memories are readable; restore the damaged ones from a backup with 'engram import FILE'", len(r.Problems))
	case r.Unchecked > 0:
		return fail(exitAuth, "%d sealed records were not checked because the vault is locked", r.Unchecked)
	}
	if *jsonOut {
		return nil
	}
	return printLine(c.out, "healthy: bbolt consistency, every record decrypted and hashed, audit chain intact")
}

// doctorReport is what engram doctor --json prints: the check's figures
// and problems, the model, and the counts of what waits for the user.
type doctorReport struct {
	Vault string `json:"vault,omitempty"`
	*vault.Report
	Model    string          `json:"model,omitempty"`
	Problems []vault.Problem `json:"problems"`
	Healthy  bool            `json:"healthy"`
	Waiting  *app.Waiting    `json:"waiting,omitempty"`
}

func (c *cmd) passphrase(args []string) error {
	if len(args) == 0 || args[0] != "change" {
		return usage("passphrase takes the subcommand 'change'")
	}
	fs := newFlags("passphrase change")
	passFile := fs.String("passphrase-file", "", "read the current passphrase from this file")
	newFile := fs.String("new-passphrase-file", "", "read the new passphrase from this file")
	if _, err := parse(fs, args[1:], 0, 0, "no arguments"); err != nil {
		return err
	}
	if err := c.open(); err != nil {
		return err
	}
	old, err := c.pass.get(*passFile, "ENGRAM_PASSPHRASE", "Current passphrase: ")
	if err != nil {
		return err
	}
	defer clear(old)
	if err := c.v.Unlock(c.ctx, old); err != nil {
		return err
	}
	c.v.Lock()
	np, err := c.pass.getNew(*newFile, "ENGRAM_NEW_PASSPHRASE", "vault passphrase")
	if err != nil {
		return err
	}
	defer clear(np)
	if hint := app.StrengthHint(np); hint != "" {
		fmt.Fprintf(c.o.Stderr, "engram: %s\n", hint)
	}
	if err := c.v.ChangePassphrase(c.ctx, old, np); err != nil {
		return err
	}
	// The keyring held the old derived key: replace it, or drop it.
	ks := c.keyStore()
	if err := app.Remember(c.v, ks); err != nil {
		_ = ks.Delete(c.v.ID())
	}
	return printLine(c.out, "passphrase changed; the data key was re-wrapped, records were not re-encrypted")
}

func (c *cmd) lock(args []string) error {
	if _, err := parse(newFlags("lock"), args, 0, 0, "no arguments"); err != nil {
		return err
	}
	running := false
	err := c.orForward(func() error {
		if err := c.o.KeyStore.Delete(c.v.ID()); err != nil && !errors.Is(err, app.ErrKeyringUnavailable) {
			return err
		}
		return nil
	}, func() error {
		var r app.Response
		if err := c.forward("POST", "/v1/admin/lock", &r); err != nil {
			return err
		}
		running = true
		return fromResponse(r)
	})
	if err != nil {
		return err
	}
	if running {
		return printLine(c.out, "locked the running Engram: sensitive memories are hidden until the passphrase is entered again; the key is no longer kept in the OS keyring")
	}
	return printLine(c.out, "locked: the key is no longer kept in the OS keyring; the next command asks for the passphrase")
}

// model says which embedding model recall uses: in a running Engram the
// one it loaded, else the built-in one (builtinModel).
func (c *cmd) model() string {
	if c.host == nil {
		return builtinModel()
	}
	st := c.svc.RecallStatus()
	if !st.Semantic {
		return "none, recall matches keywords only: " + st.KeywordOnly
	}
	return modelLine(st)
}

// waitingLines says what waits for the user (app.Waiting), one line
// each with the command that settles it.
func waitingLines(w app.Waiting) []string {
	var lines []string
	if w.Quarantine > 0 {
		lines = append(lines, fmt.Sprintf("%s in the quarantine for your review ('engram quarantine list')", count(w.Quarantine, "write", "writes")))
	}
	if w.Held > 0 {
		lines = append(lines, fmt.Sprintf("%s held in the quarantine for your review, their source found unreliable ('engram quarantine list')", count(w.Held, "memory", "memories")))
	}
	if w.SyncConflicts > 0 {
		lines = append(lines, fmt.Sprintf("%s that lost to a concurrent edit on another device in the quarantine ('engram quarantine approve ID' makes one live again)", count(w.SyncConflicts, "edit", "edits")))
	}
	if w.Hostile > 0 {
		lines = append(lines, fmt.Sprintf("%s kept as evidence in the quarantine ('engram quarantine discard ID' removes one; each goes after 30 days)", count(w.Hostile, "hostile copy", "hostile copies")))
	}
	if w.SealedHidden > 0 {
		lines = append(lines, fmt.Sprintf("%s in the quarantine, not counted above: the vault is locked", count(w.SealedHidden, "sealed item", "sealed items")))
	}
	for _, name := range w.PausedNames {
		lines = append(lines, fmt.Sprintf("agent %s is paused ('engram agent resume %s')", name, name))
	}
	for _, name := range w.PairingNames {
		lines = append(lines, fmt.Sprintf("%s asks to pair ('engram agent approve %s' or 'engram agent deny %s')", name, name, name))
	}
	if w.Questioned > 0 {
		lines = append(lines, fmt.Sprintf("%s questioned, waiting for your confirmation or refutation ('engram memory questions')", count(w.Questioned, "memory", "memories")))
	}
	if w.L3Proposed > 0 {
		lines = append(lines, fmt.Sprintf("%s past their retention, kept until you approve their removal ('engram audit prune --l3')", count(w.L3Proposed, "L3 access record", "L3 access records")))
	}
	return lines
}

// count is "1 write" or "3 writes".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// builtinModel says which built-in embedding model recall would use, and
// whether it passes its check: "use-lite-v2 (embedded, verified against
// its pinned SHA-256 hashes)", or why recall would match keywords only.
// It checks the hashes without building the model.
func builtinModel() string {
	info, err := embed.VerifyBuiltin("")
	if err != nil {
		return "none, recall matches keywords only: " + host.ModelProblem(info, err)
	}
	return modelLine(app.RecallStatus{Model: info.Name, Location: info.Location, Verified: info.Verified})
}
