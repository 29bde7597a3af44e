package host

import (
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/decay"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// Embedder choices. Any other value is the base URL of an OpenAI-compatible
// embedding server on this machine (e.g. http://127.0.0.1:11434/v1).
const (
	EmbedderBuiltin = "builtin" // the bundled Universal Sentence Encoder Lite
	EmbedderOff     = "off"     // keyword recall only
)

// Settings are the user's choices. They are stored as JSON inside the
// vault file. Zero fields mean the default (see DefaultSettings).
type Settings struct {
	// AutoLockMinutes locks the vault after this long without user
	// activity in the app; 0 means the default (10), -1 never.
	AutoLockMinutes int `json:"auto_lock_minutes,omitempty"`
	// StayUnlockedOnScreenLock keeps the vault unlocked when the desktop's
	// screen locks; by default it locks with the screen (where the desktop
	// reports it over D-Bus).
	StayUnlockedOnScreenLock bool `json:"stay_unlocked_on_screen_lock,omitempty"`
	// PII is what happens to personal data in agent writes: "encrypt"
	// (default, stored in the sensitive partition) or "redact".
	PII guard.PIIMode `json:"pii,omitempty"`
	// FailOnSecret rejects writes containing secrets instead of redacting.
	FailOnSecret bool `json:"fail_on_secret,omitempty"`
	// Conflicts resolves a write that contradicts an earlier memory:
	// trust (default), recency, confidence or ask.
	Conflicts app.ConflictStrategy `json:"conflicts,omitempty"`
	// Embedder is EmbedderBuiltin (default), EmbedderOff or a local
	// OpenAI-compatible base URL.
	Embedder string `json:"embedder,omitempty"`
	// EmbedderModel is the model name sent to an OpenAI-compatible server.
	EmbedderModel string `json:"embedder_model,omitempty"`
	// Addr is the loopback address of the agent API (default 127.0.0.1:7474).
	Addr string `json:"addr,omitempty"`
	// BackupDir is where "export backup" writes; default <data dir>/backups.
	BackupDir string `json:"backup_dir,omitempty"`
	// Decay and TTL defaults, in days; zero means the documented default.
	EpisodicTTLDays   int     `json:"episodic_ttl_days,omitempty"`
	AgentFieldTTLDays int     `json:"agent_field_ttl_days,omitempty"`
	UnusedAfterDays   int     `json:"unused_after_days,omitempty"`
	MinConfidence     float64 `json:"min_confidence,omitempty"`
	// SweepHours is how often the lifecycle sweep runs (default 24); it
	// also runs shortly after start.
	SweepHours int `json:"sweep_hours,omitempty"`
}

// DefaultSettings returns every default filled in; dataDir places the
// backup folder.
func DefaultSettings(dataDir string) Settings {
	return Settings{
		AutoLockMinutes: 10,
		PII:             guard.PIIEncrypt,
		Conflicts:       app.ResolveTrust,
		Embedder:        EmbedderBuiltin,
		Addr:            server.DefaultAddr,
		BackupDir:       filepath.Join(dataDir, "backups"),
		SweepHours:      24,
	}
}

// withDefaults fills the zero fields from DefaultSettings.
func (s Settings) withDefaults(dataDir string) Settings {
	d := DefaultSettings(dataDir)
	if s.AutoLockMinutes == 0 {
		s.AutoLockMinutes = d.AutoLockMinutes
	}
	if s.PII == "" {
		s.PII = d.PII
	}
	if s.Conflicts == "" {
		s.Conflicts = d.Conflicts
	}
	if s.Embedder == "" {
		s.Embedder = d.Embedder
	}
	if s.Addr == "" {
		s.Addr = d.Addr
	}
	if s.BackupDir == "" {
		s.BackupDir = d.BackupDir
	}
	if s.SweepHours == 0 {
		s.SweepHours = d.SweepHours
	}
	return s
}

// Validate reports the first invalid field, wrapping ErrInvalidSettings.
func (s Settings) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrInvalidSettings, fmt.Sprintf(format, args...))
	}
	if s.AutoLockMinutes < -1 || s.AutoLockMinutes > 24*60 {
		return bad("auto-lock must be between 1 and 1440 minutes, or never")
	}
	switch s.Conflicts {
	case "", app.ResolveTrust, app.ResolveRecency, app.ResolveConfidence, app.ResolveAsk:
	default:
		return bad("conflicts are resolved by trust, recency, confidence or ask, not %q", s.Conflicts)
	}
	switch s.PII {
	case "", guard.PIIEncrypt, guard.PIIRedact:
	default:
		return bad("personal data is either %q or %q, not %q", guard.PIIEncrypt, guard.PIIRedact, s.PII)
	}
	if s.Addr != "" {
		host, port, err := net.SplitHostPort(s.Addr)
		ip := net.ParseIP(host)
		if err != nil || port == "" || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
			return bad("the agent API address %q must be a loopback host:port such as 127.0.0.1:7474", s.Addr)
		}
	}
	if s.BackupDir != "" && !filepath.IsAbs(s.BackupDir) {
		return bad("the backup folder must be an absolute path")
	}
	if s.SweepHours < 0 || s.SweepHours > 24*30 {
		return bad("the sweep interval must be between 1 hour and 30 days")
	}
	if err := s.decayPolicy().Validate(); err != nil {
		return bad("%v", err)
	}
	return nil
}

// GuardPolicy is the write guard's policy.
func (s Settings) GuardPolicy() guard.Policy {
	return guard.Policy{PII: s.PII, FailOnSecret: s.FailOnSecret}
}

// DecayPolicy is the lifecycle policy the settings give.
func (s Settings) DecayPolicy() decay.Policy { return s.decayPolicy() }

func (s Settings) decayPolicy() decay.Policy {
	p := decay.DefaultPolicy()
	const day = 24 * time.Hour
	if s.EpisodicTTLDays != 0 {
		p.EpisodicTTL = time.Duration(s.EpisodicTTLDays) * day
	}
	if s.AgentFieldTTLDays != 0 {
		p.AgentFieldTTL = time.Duration(s.AgentFieldTTLDays) * day
	}
	if s.UnusedAfterDays != 0 {
		p.UnusedAfter = time.Duration(s.UnusedAfterDays) * day
	}
	if s.MinConfidence != 0 {
		p.MinConfidence = s.MinConfidence
	}
	return p
}

// AutoLock is the idle time before the vault locks; 0 means never.
func (s Settings) AutoLock() time.Duration {
	if s.AutoLockMinutes < 0 {
		return 0
	}
	return time.Duration(s.AutoLockMinutes) * time.Minute
}

// LoadSettings reads the settings stored in v, with the defaults for
// dataDir filled in. Settings that cannot be read give the defaults and
// the error.
func LoadSettings(v *vault.Vault, dataDir string) (Settings, error) {
	raw, err := v.Settings()
	var s Settings
	if err == nil {
		s, err = decodeSettings(raw)
	}
	if err != nil {
		s = Settings{}
	}
	return s.withDefaults(dataDir), err
}

func decodeSettings(b []byte) (Settings, error) {
	var s Settings
	if len(b) == 0 {
		return s, nil
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, fmt.Errorf("%w: stored settings: %v", ErrInvalidSettings, err)
	}
	return s, nil
}

// PIIMode is what happens to personal data: guard.PIIEncrypt or
// guard.PIIRedact ("encrypt" or "redact").
type PIIMode = guard.PIIMode
