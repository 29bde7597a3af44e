package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/connect"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/vault"
)

// Exit codes; see the package documentation.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitAuth    = 3
	exitInUse   = 4
	exitDamaged = 5
)

// Options are what the command line needs from its surroundings. Main
// passes the real ones; tests pass a cheap KDF and their own streams.
type Options struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	// KeyStore keeps the derived key; nil means the OS keyring.
	KeyStore app.KeyStore
	// Secrets keeps the tokens of agents that engram connect registers;
	// nil means the OS keyring.
	Secrets connect.Secrets
	// Prompt asks for a passphrase on a terminal; nil means there is none.
	Prompt func(prompt string) ([]byte, error)
	// ReadLine asks for a line of text on a terminal (a confirmation);
	// nil means there is none. It fails with errNoTerminal when it finds
	// none.
	ReadLine func(prompt string) (string, error)
	// KDF is the cost of new vaults; zero calibrates on this machine.
	KDF vault.KDFCost
	// BackupWorkFactor is age's scrypt work factor for exports; 0 is age's default.
	BackupWorkFactor int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Default returns the options of the real program.
func Default() Options {
	return Options{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
		KeyStore: app.OSKeyring{}, Secrets: app.OSSecrets{}, Prompt: terminalPrompt, ReadLine: terminalLine,
	}
}

// Main runs the command line with the real options and returns the exit code.
func Main(args []string) int {
	ctx, stop := signalContext()
	defer stop()
	return Run(ctx, args, Default())
}

// exitError carries an exit code with a one-sentence message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func fail(code int, format string, args ...any) error {
	return &exitError{code, fmt.Sprintf(format, args...)}
}

func usage(format string, args ...any) error { return fail(exitUsage, format, args...) }

// helpRequested carries a command's usage for --help: printed on standard
// output, exit 0.
type helpRequested struct{ text string }

func (h *helpRequested) Error() string { return "help requested" }

// flagHelp is a command's usage with every flag it takes.
func flagHelp(fs *flag.FlagSet, what string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: engram %s [flags]", fs.Name())
	if what != "no arguments" {
		fmt.Fprintf(&b, " (takes %s)", what)
	}
	b.WriteString("\n")
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		if n == 0 {
			b.WriteString("Flags:\n")
		}
		n++
		name, use := flag.UnquoteUsage(f)
		fmt.Fprintf(&b, "  --%s", f.Name)
		if name != "" {
			fmt.Fprintf(&b, " %s", name)
		}
		fmt.Fprintf(&b, "\n        %s", use)
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "[]" {
			fmt.Fprintf(&b, " (default %s)", f.DefValue)
		}
		b.WriteString("\n")
	})
	if n == 0 {
		b.WriteString("No flags.\n")
	}
	return b.String()
}

// cmd is one run of the command line.
type cmd struct {
	ctx  context.Context
	o    Options
	out  io.Writer
	pass passphrases
	v    *vault.Vault
	svc  *app.Service
	// settings are the vault's stored settings, read when it opens.
	settings host.Settings
	// host is the running Engram a forwarded command runs in (nil when
	// the command runs in its own process): v and svc are its, held, not
	// closed here (hosted.go).
	host *host.Host
	// dir is the user's working directory, for a forwarded command;
	// resolved maps the paths it resolved against dir back to how the
	// user wrote them, for messages.
	dir      string
	resolved map[string]string
	// forwardArgs, when set, are the arguments of a command that runs in
	// the running Engram if that holds the vault (hosted.go).
	forwardArgs []string
	// idleEmbedding makes openWithRecall embed written memories only on
	// idle cores (app.Options.IdleEmbedding): an import's own checks come
	// first, and what is not embedded when it ends is embedded at the
	// next start.
	idleEmbedding bool
}

// Run executes args (without the program name) and returns the exit code.
// While another Engram process (engram serve, the desktop app) holds the
// vault, the user's commands run inside it (see forwardable), with the
// same output and exit code.
func Run(ctx context.Context, args []string, o Options) int {
	c := newCmd(ctx, o.filled())
	defer c.close()
	if forwardable(args) {
		if code, ok := c.forwardRun(args); ok {
			return code
		}
		c.forwardArgs = args
	}
	return c.exit(c.dispatch(args))
}

// newCmd returns a command run with options o (filled).
func newCmd(ctx context.Context, o Options) *cmd {
	c := &cmd{ctx: ctx, o: o, out: o.Stdout}
	c.pass = passphrases{getenv: o.Getenv, tty: o.Prompt, read: c.readUserFile}
	return c
}

// filled returns o with its defaults for nil fields.
func (o Options) filled() Options {
	if o.Stdout == nil {
		o.Stdout = io.Discard
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	if o.Stdin == nil {
		o.Stdin = strings.NewReader("")
	}
	if o.Getenv == nil {
		o.Getenv = func(string) string { return "" }
	}
	if o.KeyStore == nil {
		o.KeyStore = app.OSKeyring{}
	}
	if o.Secrets == nil {
		o.Secrets = app.OSSecrets{}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// exit prints what err says and returns the exit code for it.
func (c *cmd) exit(err error) int {
	if err == nil {
		return exitOK
	}
	if h, ok := errors.AsType[*helpRequested](err); ok {
		fmt.Fprint(c.o.Stdout, h.text)
		return exitOK
	}
	if f, ok := errors.AsType[*forwardedExit](err); ok {
		return f.code // the running Engram has said it all
	}
	var ee *exitError
	if !errors.As(err, &ee) {
		ee = classify(err)
	}
	fmt.Fprintf(c.o.Stderr, "engram: %s\n", c.unresolve(ee.msg))
	if ee.code == exitUsage {
		fmt.Fprintln(c.o.Stderr, "Run 'engram help' for usage.")
	}
	return ee.code
}

// classify turns an error from the vault or the service into an exit code
// and one sentence.
func classify(err error) *exitError {
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled):
		return &exitError{exitFailed, "interrupted"}
	case errors.Is(err, vault.ErrInUse):
		return &exitError{exitInUse, "the vault is in use by another Engram process (the desktop app or engram serve); close it first"}
	case errors.Is(err, vault.ErrWrongPassphrase):
		return &exitError{exitAuth, "wrong passphrase; nothing was changed"}
	case errors.Is(err, vault.ErrLocked), errors.Is(err, app.ErrNoPassphrase):
		return &exitError{exitAuth, msg}
	case errors.Is(err, vault.ErrAuth), errors.Is(err, vault.ErrCorrupt), errors.Is(err, vault.ErrFormat), errors.Is(err, vault.ErrBackup):
		return &exitError{exitDamaged, msg + "; run 'engram doctor', and restore from a backup with 'engram import' if needed"}
	}
	return &exitError{exitFailed, msg}
}

// fromResponse turns a failed service response into an exit error.
func fromResponse(r app.Response) error {
	switch r.Status {
	case app.StatusOK:
		return nil
	case app.StatusLocked:
		return fail(exitAuth, "%s", r.Message)
	case app.StatusDamaged:
		return fail(exitDamaged, "%s; run 'engram doctor', and restore from a backup with 'engram import' if needed", r.Message)
	}
	return fail(exitFailed, "%s", r.Message)
}

// close stops the service first: it writes the access times of what was
// recalled and ends its background work before the vault closes.
func (c *cmd) close() {
	if c.host != nil {
		return // the running Engram's own
	}
	if c.svc != nil {
		c.svc.Close()
	}
	if c.v != nil {
		c.v.Close()
	}
}

func (c *cmd) vaultPath() (string, error) {
	dir, err := app.DataDir(c.o.Getenv)
	if err != nil {
		return "", err
	}
	warning, err := app.SecureDir(dir)
	if err != nil {
		return "", err
	}
	if warning != "" {
		fmt.Fprintf(c.o.Stderr, "engram: %s\n", warning)
	}
	return filepath.Join(dir, app.VaultFile), nil
}

// open opens the vault, locked, with a service that applies its stored
// settings (the write guard's policy, the conflict strategy) as the
// running Engram does. In a running Engram it does nothing: c.v and c.svc
// are its own. When another process holds the vault and the command may
// run there, it runs there and open returns its exit code as a
// *forwardedExit.
func (c *cmd) open() error {
	if c.host != nil {
		return nil
	}
	path, err := c.vaultPath()
	if err != nil {
		return err
	}
	v, err := vault.Open(path, vault.Options{Timeout: time.Second, Now: c.o.Now})
	if errors.Is(err, vault.ErrNotFound) {
		return fail(exitFailed, "no vault at %s; create one with 'engram init'", path)
	}
	if errors.Is(err, vault.ErrInUse) && c.forwardArgs != nil {
		// It started after Run looked for it.
		if code, ok := c.forwardRun(c.forwardArgs); ok {
			return &forwardedExit{code}
		}
	}
	if err != nil {
		return err
	}
	st, serr := host.LoadSettings(v, filepath.Dir(path))
	if serr != nil {
		fmt.Fprintf(c.o.Stderr, "engram: the stored settings could not be read (%v); the defaults are in use\n", serr)
	}
	svc, err := app.New(v, app.Options{Now: c.o.Now, Guard: st.GuardPolicy(), Conflicts: st.Conflicts, Lifecycle: st.DecayPolicy()})
	if err != nil {
		v.Close()
		return err
	}
	c.v, c.svc, c.settings = v, svc, st
	return nil
}

// unlockMode says how hard to try to unlock.
type unlockMode int

const (
	// unlockIfEasy uses the keyring or a configured passphrase, never a prompt.
	unlockIfEasy unlockMode = iota
	// unlockRequired also prompts, and fails when it cannot unlock.
	unlockRequired
)

// unlock unlocks the open vault. When it has to ask on the terminal
// because the keyring could not be used, it says why on stderr.
func (c *cmd) unlock(mode unlockMode, passFile string, remember bool) error {
	return c.unlockVault(c.v, mode, passFile, remember)
}

// unlockVault is unlock for a vault opened elsewhere (engram serve's host).
// In a running Engram, unlocking unlocks it, for the app and agents too,
// through its host (host.UnlockWith), and says so; after the user locked
// it, the keyring no longer unlocks it (host.CommandKeyStore).
func (c *cmd) unlockVault(v *vault.Vault, mode unlockMode, passFile string, remember bool) error {
	if !v.Locked() {
		return nil
	}
	var keyringErr error
	ask := func(prompt string) ([]byte, error) {
		p := c.pass
		if mode == unlockIfEasy {
			p.tty = nil
		}
		if passFile == "" && c.o.Getenv("ENGRAM_PASSPHRASE") == "" && p.tty != nil && keyringErr != nil {
			fmt.Fprintf(c.o.Stderr, "engram: not using the OS keyring (%v)\n", keyringErr)
		}
		return p.get(passFile, "ENGRAM_PASSPHRASE", prompt)
	}
	if c.o.Getenv("ENGRAM_NO_KEYRING") != "" {
		remember = false
	}
	ks := c.keyStore()
	// Probe the keyring once so ask can explain a prompt.
	key, err := ks.Get(v.ID())
	clear(key)
	if err != nil && !errors.Is(err, app.ErrNoKey) {
		keyringErr = err
	}
	if c.host != nil {
		var unlocked bool
		_, unlocked, err = c.host.UnlockWith(c.ctx, ks, ask, remember)
		if unlocked {
			fmt.Fprintln(c.o.Stderr, "engram: the running Engram is unlocked now, for the app and agents too; 'engram lock' locks it again")
		}
	} else {
		_, err = app.Unlock(c.ctx, v, ks, ask, remember)
	}
	if err != nil && mode == unlockIfEasy && errors.Is(err, app.ErrNoPassphrase) {
		return nil // stay locked; sensitive memories stay hidden
	}
	return err
}

// openAndUnlock opens the vault and unlocks it as mode asks.
func (c *cmd) openAndUnlock(mode unlockMode, passFile string) error {
	if err := c.open(); err != nil {
		return err
	}
	return c.unlock(mode, passFile, true)
}

// modeFor asks for the passphrase only when the sensitive partition is named.
func modeFor(partition string) unlockMode {
	if vault.Partition(partition) == vault.Sensitive {
		return unlockRequired
	}
	return unlockIfEasy
}

func (c *cmd) keyStore() app.KeyStore {
	if c.o.Getenv("ENGRAM_NO_KEYRING") != "" {
		return app.NoKeyring{Reason: "ENGRAM_NO_KEYRING is set"}
	}
	if c.host != nil {
		return c.host.CommandKeyStore()
	}
	return c.o.KeyStore
}

var operator = app.Request{Caller: app.Caller{Operator: true}, Authorized: true}

func (c *cmd) dispatch(args []string) error {
	if len(args) == 0 {
		return usage("no command given")
	}
	switch args[0] {
	case "help", "-h", "--help":
		fmt.Fprint(c.out, helpText)
		return nil
	case "init":
		return c.initVault(args[1:])
	case "memory":
		return c.memory(args[1:])
	case "audit":
		return c.audit(args[1:])
	case "doctor":
		return c.doctor(args[1:])
	case "passphrase":
		return c.passphrase(args[1:])
	case "lock":
		return c.lock(args[1:])
	case "export":
		return c.export(args[1:])
	case "import":
		return c.importBackup(args[1:])
	case "guard":
		return c.guardCmd(args[1:])
	case "quarantine":
		return c.quarantine(args[1:])
	case "agent":
		return c.agent(args[1:])
	case "serve":
		return c.serve(args[1:])
	case "mcp":
		return c.mcpBridge(args[1:])
	case "connect":
		return c.connectCmd(args[1:])
	case "hook":
		return c.hookCmd(args[1:])
	case "sweep":
		return c.sweep(args[1:])
	case "sync":
		return c.syncCmd(args[1:])
	}
	return usage("unknown command %q", args[0])
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parse parses args and checks the number of positional arguments.
func parse(fs *flag.FlagSet, args []string, min, max int, what string) ([]string, error) {
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, &helpRequested{flagHelp(fs, what)}
	}
	if err != nil {
		return nil, usage("%s: %v", fs.Name(), err)
	}
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		return nil, usage("%s takes %s", fs.Name(), what)
	}
	return pos, nil
}

const helpText = `Engram: an encrypted memory vault for AI agents.

Usage:
  engram init [--passphrase-file F] [--no-keyring]
  engram memory add [--partition public|internal|sensitive] [--kind K] [--field F] [--tier T] [--tag T]... [--expires TIME|DURATION] [--confirm] [--json] TEXT
                                                     # --confirm: store it as it is although it may hold a secret
  engram memory recall QUERY [--mode hybrid|semantic|exact] [--limit N] [--context] [--json]
                                                     # says 'keyword recall only: WHY' without the model
  engram memory get|history ID [--json]
  engram memory list [--partition P] [--json]
  engram memory update ID [TEXT] [--expires TIME|DURATION|default] [--confirm]
  engram memory confirm ID [EVIDENCE]                # your verdict: its confidence and time to live start again
  engram memory refute ID EVIDENCE                   # found wrong: the next sweep archives it, the evidence its note
  engram memory question ID REASON                   # doubt it: it stays, with half its confidence, labelled
                                                     # "questioned: REASON" until you confirm or refute it
  engram memory questions [--json]                   # what you and agents questioned, waiting for your verdict
  engram memory rollback ID --to N
  engram memory merge ID ID... [--strategy union|prioritize|intersection]   # sources archived with a pointer;
                                                     # intersection keeps the sentences all of them hold
  engram memory split ID PART PART...                          # the original archived with a pointer
  engram memory pin|unpin|delete|restore ID          # restore counts as your confirmation
  engram memory confirm ID [EVIDENCE] | refute ID EVIDENCE   # your verdicts; refuted: archived at the next sweep
  engram memory forget TOPIC [--yes]                 # purge everything about a topic, now, with no archive
  engram memory clear episodic|semantic|all [--yes]  # all needs --yes --yes
  engram audit [--agent A] [--field F] [--last N] [--json]
  engram audit verify
  engram audit prune [--days N] [--l3]               # default 90, or $ENGRAM_AUDIT_RETENTION_DAYS; L3 access
                                                     # records go only with --l3, past a year (the sweep proposes it)
  engram doctor [--json] [--salvage FILE]            # check the vault and the embedding model, and list what
                                                     # waits for you (--json: the counts, for scripts); with
                                                     # --salvage, recover a damaged file into a backup
  engram passphrase change
  engram lock
  engram export FILE                                 # an encrypted backup
  engram export --format markdown|jsonl [--include-sensitive] FILE   # a readable, unencrypted copy (0600)
  engram import [--include-forgotten] FILE           # restore an encrypted backup; memories this vault
                                                     # deleted or forgot stay out unless --include-forgotten
  engram import --from claude|agents|cursor|copilot|mcp-memory|mem0 [--dry-run] [--agent NAME] [--partition P] [--json] PATH
                                                     # other tools' memory and rules files; each entry through
                                                     # the write guard, never with your trust
  engram guard [--source TYPE] [--jsonl] < texts.jsonl      # screen texts; no vault needed
  engram quarantine list|show|approve [--edit TEXT]|reject|discard [ID]
  engram agent add NAME [--fields F,F] [--read P,P] [--product P] [--group G] [--may-confirm]   # prints the token last
  engram agent list | approve|deny|revoke|rotate|pause|resume NAME
  engram agent review NAME [--session ID] [--dry-run] [--yes] [--json]
                                                     # found unreliable: hold its live memories (and those merged
                                                     # from them or confirmed only by it) for your review; an
                                                     # import run is import:FORMAT --session import-…
  engram serve [--addr 127.0.0.1:7474]               # the loopback API for agents
  engram mcp [--agent NAME | --token-file F] [--url ADDR]  # MCP over stdio, forwarded to the running Engram
  engram connect CLIENT [--agent NAME] [--fields F,F] [--read P,P] [--no-hooks] [--no-capture] [--project DIR=NAME] [--dry-run]
                                                     # set up claude-code, claude-desktop, cursor, vscode,
                                                     # windsurf, codex, gemini or zed; the token goes to the OS keyring
  engram connect --remove CLIENT [--dry-run]         # undo it and revoke the agent
  engram hook EVENT [--client NAME] [--agent NAME] [--budget N] [--project DIR=NAME] [--no-capture]  # a client's lifecycle hook: JSON in, its answer out; always exits 0
  engram connect --list                              # which clients are installed and connected
  engram sweep [--now RFC3339]                       # decay, expiry, archive, purge, compaction
  engram sync setup FOLDER [--name N]                # sync this vault through FOLDER (Syncthing, Dropbox, a shared folder)
  engram sync join FOLDER [--name N]                 # on another device: create the vault from FOLDER (asks its passphrase)
  engram sync now | status | devices [--json]        # exchange now; devices, last exchange, pending, conflicts, refused
  engram sync revoke DEVICE                          # stop applying a device's segments, on every device

While the desktop app or engram serve holds the vault, the memory, quarantine,
audit, export, import, sweep, sync (but join), doctor, agent and lock commands run inside it,
with the same output and exit codes; init, serve, mcp, connect, guard,
passphrase and doctor --salvage run in their own process.

The vault lives in $ENGRAM_HOME, else $XDG_DATA_HOME/engram.
Passphrases come from --passphrase-file, ENGRAM_PASSPHRASE or the terminal;
backup passphrases from ENGRAM_BACKUP_PASSPHRASE or the terminal. The derived
key is kept in the OS keyring unless ENGRAM_NO_KEYRING is set.

Exit codes: 0 ok, 1 failed, 2 usage, 3 wrong passphrase or locked,
4 vault in use, 5 damage found.
`
