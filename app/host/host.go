package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/embed"
	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
)

// Config is what a Host needs from its surroundings.
type Config struct {
	// DataDir holds the vault file (see app.DataDir).
	DataDir string
	// RuntimeDir holds the agent API's address file, admin token and Unix
	// socket; default DataDir.
	RuntimeDir string
	// KeyStore keeps the derived key; nil means the OS keyring.
	KeyStore app.KeyStore
	// KDF is the cost of a new vault's key derivation; zero calibrates
	// on this machine (about 0.75 s).
	KDF vault.KDFCost
	// BackupWorkFactor is age's scrypt work factor for backups; 0 is age's
	// default.
	BackupWorkFactor int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Log receives operational messages (never memory content).
	Log *slog.Logger
	// Getenv reads the environment; nil means os.Getenv.
	Getenv func(string) string
	// ModelDir is where the built-in embedding model lives; empty means
	// where embed.LoadBuiltin looks: $ENGRAM_MODEL_DIR, else the copy
	// inside the binary, else the data directory's models/use-lite.
	ModelDir string
	// NoServer keeps the agent API off (tests of the UI).
	NoServer bool
	// Addr, when set, overrides the settings' agent API address
	// (engram serve --addr).
	Addr string
	// NoAutoLock turns the idle auto-lock off: engram serve has no user
	// activity to measure.
	NoAutoLock bool
	// Commands, when set, runs the engram commands the user forwards to
	// this Engram while it holds the vault (see server.RunFunc): the
	// command line provides it (cli.Commands), since this package cannot
	// import it.
	Commands Commands
}

// Commands runs one forwarded engram command on h and returns its exit
// code (see server.RunFunc).
type Commands func(ctx context.Context, h *Host, inv server.Invocation, t server.Terminal) int

func (c *Config) fill() {
	if c.RuntimeDir == "" {
		c.RuntimeDir = c.DataDir
	}
	if c.KeyStore == nil {
		c.KeyStore = app.OSKeyring{}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
}

// StartingFile, in the runtime directory, names the address an Engram
// that holds the vault will serve its agent API on, from the moment it
// has the vault until it listens there (then the address file says it)
// or stops: a hook that finds nothing listening waits only for that
// (package hooks), never for a command that holds the vault and serves
// nothing.
const StartingFile = "engram.starting"

// VaultPath is where the vault file of dataDir lives.
func VaultPath(dataDir string) string { return filepath.Join(dataDir, app.VaultFile) }

// Exists reports whether dataDir has a vault.
func Exists(dataDir string) bool {
	_, err := os.Stat(VaultPath(dataDir))
	return err == nil
}

// Host is a running Engram: one open vault, its service and the
// background work around it. Its methods are safe for concurrent use.
type Host struct {
	cfg Config
	v   *vault.Vault
	svc *app.Service

	// Warnings are things the user should know about start-up (semantic
	// recall off, keyring unusable); the UI shows them once.
	Warnings []string

	mu           sync.Mutex
	settings     Settings
	lastActivity time.Time
	// userLocked is set by Lock: after it, the keyring no longer unlocks
	// silently in this process, so an idle lock means something.
	userLocked bool
	keyringErr error
	listeners  []func(Event)
	serverAddr string
	serverErr  error

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Create makes a new vault in cfg.DataDir with passphrase pass and opens
// it unlocked. With remember set the derived key is kept in the keyring;
// a keyring that cannot be used is reported in Warnings, not as an error.
func Create(ctx context.Context, cfg Config, pass []byte, remember bool) (*Host, error) {
	cfg.fill()
	if len(pass) == 0 {
		return nil, errors.New("the passphrase is empty")
	}
	if _, err := app.SecureDir(cfg.DataDir); err != nil {
		return nil, err
	}
	v, err := vault.Create(ctx, VaultPath(cfg.DataDir), pass, vault.CreateOptions{KDF: cfg.KDF, Options: vault.Options{Timeout: time.Second, Now: cfg.Now}})
	if err != nil {
		return nil, err
	}
	h, err := newHost(cfg, v)
	if err != nil {
		return nil, err
	}
	if remember {
		if err := app.Remember(v, cfg.KeyStore); err != nil {
			h.Warnings = append(h.Warnings, fmt.Sprintf("The key could not be kept in the OS keyring (%v): Engram will ask for the passphrase at each start.", err))
		}
	}
	return h, nil
}

// Open opens the vault in cfg.DataDir, locked. It fails with ErrNoVault
// when there is none, and with an error wrapping vault.ErrInUse when
// another Engram process has it open.
func Open(ctx context.Context, cfg Config) (*Host, error) {
	cfg.fill()
	warning, err := app.SecureDir(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	v, err := vault.Open(VaultPath(cfg.DataDir), vault.Options{Timeout: time.Second, Now: cfg.Now})
	if errors.Is(err, vault.ErrNotFound) {
		return nil, ErrNoVault
	}
	if err != nil {
		return nil, err
	}
	h, err := newHost(cfg, v)
	if err == nil && warning != "" {
		h.Warnings = append(h.Warnings, warning)
	}
	return h, err
}

func newHost(cfg Config, v *vault.Vault) (*Host, error) {
	h := &Host{cfg: cfg, v: v, lastActivity: cfg.Now()}
	var err error
	h.settings, err = LoadSettings(v, cfg.DataDir)
	if err != nil {
		h.Warnings = append(h.Warnings, fmt.Sprintf("The stored settings could not be read (%v); the defaults are in use.", err))
	}
	h.markStarting()
	engine, status := NewRecall(h.settings, cfg.ModelDir)
	if status.KeywordOnly != "" && h.settings.Embedder != EmbedderOff {
		h.Warnings = append(h.Warnings, "Semantic recall is off: "+status.KeywordOnly+"; keyword recall still works.")
	}
	app.SpareProc()
	svc, err := app.New(v, app.Options{Log: cfg.Log, Guard: h.settings.GuardPolicy(), Now: cfg.Now, Recall: engine, RecallStatus: status, IndexInBackground: true, Conflicts: h.settings.Conflicts, IdleEmbedding: true, Lifecycle: h.settings.DecayPolicy()})
	if err != nil {
		h.doneStarting()
		v.Close()
		return nil, err
	}
	h.svc = svc
	return h, nil
}

// ModelIdle is how long the built-in model stays loaded after its last
// use. Loading the embedded copy again takes about a tenth of a second;
// holding it costs about 45 MB.
const ModelIdle = 2 * time.Minute

// NewRecall builds the recall engine the settings ask for, and says which
// model it uses. When the embedder cannot be used, recall falls back to
// keywords and the status's KeywordOnly says why. modelDir is where the
// built-in model is (embed.LoadBuiltin; empty looks where Engram looks).
func NewRecall(s Settings, modelDir string) (*recall.Engine, app.RecallStatus) {
	keywords := recall.New(recall.DefaultConfig(nil))
	switch s.Embedder {
	case EmbedderOff:
		return keywords, app.RecallStatus{KeywordOnly: "the embedder is off in Settings"}
	case "", EmbedderBuiltin:
		u, info, err := embed.LoadBuiltin(modelDir)
		if err != nil {
			return keywords, app.RecallStatus{Model: info.Name, Location: info.Location, KeywordOnly: ModelProblem(info, err)}
		}
		var e embed.Embedder = u
		if info.Location == embed.Embedded {
			// The embedded copy is part of the running binary, so loading
			// it again cannot fail for want of a file.
			e = embed.NewUnloading(u, func() (embed.Embedder, error) {
				u, _, err := embed.LoadBuiltin(modelDir)
				return u, err
			}, ModelIdle)
		}
		return recall.New(recall.DefaultConfig(e)), app.RecallStatus{Semantic: true, Model: info.Name, Location: info.Location, Verified: info.Verified}
	}
	model := s.EmbedderModel
	if model == "" {
		model = "nomic-embed-text"
	}
	o, err := embed.NewOpenAI(s.Embedder, model)
	if err != nil {
		return keywords, app.RecallStatus{Model: model, Location: s.Embedder, KeywordOnly: err.Error()}
	}
	return recall.New(recall.DefaultConfig(o)), app.RecallStatus{Semantic: true, Model: model, Location: s.Embedder}
}

// ModelProblem says in one clause why the built-in model at info could
// not be used (err from embed.LoadBuiltin).
func ModelProblem(info embed.ModelInfo, err error) string {
	switch {
	case (errors.Is(err, embed.ErrModelNotFound) || errors.Is(err, os.ErrNotExist)) && !embed.HasEmbedded():
		return "the embedding model is not installed at " + info.Location + " and this binary does not carry one (build it with 'make build')"
	case errors.Is(err, embed.ErrModelNotFound) || errors.Is(err, os.ErrNotExist):
		return "the embedding model is not installed at " + info.Location
	case errors.Is(err, embed.ErrModelCorrupt):
		return "the embedding model at " + info.Location + " failed its check (" + err.Error() + ")"
	}
	return "the embedding model at " + info.Location + " could not be loaded (" + err.Error() + ")"
}

// Service is the memory service; the UI calls it with Operator().
func (h *Host) Service() *app.Service { return h.svc }

// Operator is the request of the local user.
func (h *Host) Operator() app.Request {
	return app.Request{Caller: app.Caller{Operator: true}, Authorized: true, Reason: "desktop app"}
}

// DataDir is the data directory.
func (h *Host) DataDir() string { return h.cfg.DataDir }

// VaultPath is the vault file.
func (h *Host) VaultPath() string { return h.v.Path() }

// ReleasePages takes the vault file's pages out of the process's resident
// memory (see vault.Vault.ReleasePages); the desktop app calls it when it
// trims its memory. It is best effort: a vault closed meanwhile, or a
// system without the call, leaves the pages where they are.
func (h *Host) ReleasePages() {
	if err := h.v.ReleasePages(); err != nil {
		h.cfg.Log.Debug("release the vault's pages", "err", err)
	}
}

// Vault is the open vault, for the command line's own unlock flow (the
// desktop app goes through TryKeyring and Unlock).
func (h *Host) Vault() *vault.Vault { return h.v }

// Locked reports whether the sensitive partition is locked.
func (h *Host) Locked() bool { return h.v.Locked() }

// TryKeyring unlocks with the key in the OS keyring, if there is one and
// the user has not locked the vault in this process. It reports whether
// the vault is now unlocked and, if not, why the keyring was not used
// (nil when there simply was no key).
func (h *Host) TryKeyring() (bool, error) {
	if !h.v.Locked() {
		return true, nil
	}
	h.mu.Lock()
	userLocked := h.userLocked
	h.mu.Unlock()
	if userLocked {
		return false, nil
	}
	key, err := h.cfg.KeyStore.Get(h.v.ID())
	if errors.Is(err, app.ErrNoKey) {
		return false, nil
	}
	if err != nil {
		h.setKeyringErr(err)
		return false, err
	}
	defer clear(key)
	if err := h.v.UnlockWithKey(key); err != nil {
		_ = h.cfg.KeyStore.Delete(h.v.ID())
		return false, errors.New("the key in the OS keyring is out of date")
	}
	h.unlocked()
	return true, nil
}

func (h *Host) setKeyringErr(err error) {
	h.mu.Lock()
	h.keyringErr = err
	h.mu.Unlock()
}

// Unlock unlocks with a passphrase; a wrong one returns an error wrapping
// vault.ErrWrongPassphrase and changes nothing. With remember set the key
// is kept in the keyring (a failure there is returned in the second value).
func (h *Host) Unlock(ctx context.Context, pass []byte, remember bool) (keyringErr, err error) {
	if err := h.v.Unlock(ctx, pass); err != nil {
		return nil, err
	}
	if remember {
		keyringErr = app.Remember(h.v, h.cfg.KeyStore)
	}
	h.unlocked()
	return keyringErr, nil
}

func (h *Host) unlocked() {
	h.mu.Lock()
	h.userLocked = false
	h.lastActivity = h.cfg.Now()
	h.mu.Unlock()
	h.emit(Event{Lock: true})
}

// Lock forgets the key: sensitive memories are hidden from everyone until
// the passphrase is entered again (the keyring does not unlock silently
// again in this process). Agents keep their access to the rest.
func (h *Host) Lock() {
	h.mu.Lock()
	h.userLocked = true
	h.mu.Unlock()
	if !h.v.Locked() {
		h.v.Lock()
		h.emit(Event{Lock: true})
	}
}

// LockAndForget is `engram lock` reaching the running Engram: it locks
// (Lock) and removes the key from the OS keyring, so the next start asks
// for the passphrase.
func (h *Host) LockAndForget() error {
	h.Lock()
	err := h.cfg.KeyStore.Delete(h.v.ID())
	if errors.Is(err, app.ErrKeyringUnavailable) || errors.Is(err, app.ErrNoKey) {
		return nil
	}
	return err
}

// Touch records user activity for the auto-lock.
func (h *Host) Touch() {
	h.mu.Lock()
	h.lastActivity = h.cfg.Now()
	h.mu.Unlock()
}

// Settings returns the current settings, defaults filled in.
func (h *Host) Settings() Settings {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.settings
}

// SaveSettings validates and stores s in the vault. The guard policy,
// embedder and address take effect at the next start; the auto-lock,
// decay and backup folder at once.
func (h *Host) SaveSettings(s Settings) error {
	if err := s.Validate(); err != nil {
		return err
	}
	s = s.withDefaults(h.cfg.DataDir)
	doc, err := jsonMarshal(s)
	if err != nil {
		return err
	}
	if err := h.v.SetSettings(doc, vault.Actor{Agent: vault.AgentOperator, Reason: "desktop app"}); err != nil {
		return err
	}
	h.mu.Lock()
	h.settings = s
	h.mu.Unlock()
	return nil
}

// ServerStatus reports the agent API's address once it listens, or why it
// could not start.
func (h *Host) ServerStatus() (addr string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.serverAddr, h.serverErr
}

// Start begins the background work: the recall index build, the agent
// API (unless NoServer), the audit watcher that feeds Subscribe, the
// scheduled sweep, the auto-lock and the screen-lock watch. It returns at
// once; Close ends it all. The desktop app calls it once its window shows
// the memories, so the two full reads of the vault do not compete.
func (h *Host) Start(ctx context.Context) {
	ctx, h.cancel = context.WithCancel(ctx)
	h.svc.BuildIndex()
	if !h.cfg.NoServer {
		h.wg.Go(func() { h.serve(ctx) })
	}
	h.wg.Go(func() { h.watch(ctx, 300*time.Millisecond) })
	h.wg.Go(func() { h.schedule(ctx) })
	h.wg.Go(func() { h.watchScreenLock(ctx) })
	if !h.v.ReadOnly() {
		h.wg.Go(func() { h.syncFolder(ctx) })
	}
}

func (h *Host) serve(ctx context.Context) {
	addr := h.Settings().Addr
	if h.cfg.Addr != "" {
		addr = h.cfg.Addr
	}
	rt := h.cfg.RuntimeDir
	o := server.Options{Log: h.cfg.Log, Listening: func(a string) {
		h.doneStarting()
		h.mu.Lock()
		h.serverAddr = a
		h.mu.Unlock()
		h.emit(Event{Server: true})
	}, Lock: h.LockAndForget}
	if run := h.cfg.Commands; run != nil {
		o.Run = func(ctx context.Context, inv server.Invocation, t server.Terminal) int { return run(ctx, h, inv, t) }
		o.VaultPath = h.v.Path()
	}
	srv := server.New(h.svc, o)
	err := srv.Serve(ctx, addr, filepath.Join(rt, "engram.sock"), filepath.Join(rt, "engram.addr"))
	h.doneStarting()
	if err != nil && ctx.Err() == nil {
		h.cfg.Log.Error("agent API stopped", "err", err)
		h.mu.Lock()
		h.serverErr = err
		h.mu.Unlock()
		h.emit(Event{Server: true})
	}
}

// Close stops the background work and closes the vault. The key is
// forgotten with it.
func (h *Host) Close() error {
	if h.cancel != nil {
		h.cancel()
	}
	h.wg.Wait()
	h.doneStarting()
	h.svc.Close()
	return h.v.Close()
}

// markStarting writes StartingFile with the address the agent API will
// listen on, unless there is no agent API. It holds the vault, so no
// other Engram of this data directory writes or removes the file
// meanwhile. A file that cannot be written only means hooks do not wait.
func (h *Host) markStarting() {
	if h.cfg.NoServer {
		return
	}
	addr := h.settings.Addr
	if h.cfg.Addr != "" {
		addr = h.cfg.Addr
	}
	if os.MkdirAll(h.cfg.RuntimeDir, 0o700) == nil {
		_ = os.WriteFile(filepath.Join(h.cfg.RuntimeDir, StartingFile), []byte(addr+"\n"), 0o600)
	}
}

// doneStarting removes StartingFile: the agent API listens (its address
// file says where), could not, or never will.
func (h *Host) doneStarting() {
	if !h.cfg.NoServer {
		_ = os.Remove(filepath.Join(h.cfg.RuntimeDir, StartingFile))
	}
}
