package agents

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/vault"
)

// NewRegistry returns the registry of v's agents.
func NewRegistry(v *vault.Vault) *Registry { return &Registry{v: v} }

// Registry holds the agent registry of a vault by token hash, so
// authenticating a request does not decode every registration. The
// service owns the vault file alone, and every change to an agent goes
// through it and drops the cache (Drop). Its methods are safe for
// concurrent use.
type Registry struct {
	v      *vault.Vault
	mu     sync.Mutex
	byHash map[string]vault.Agent
	names  map[string]vault.Agent
	// pickup holds tokens of approved pairings until the agent collects them.
	pickup map[string]string
	// seen is when each agent last authenticated in this process. It is
	// kept in memory: a write per request would cost an fsync each, and
	// the audit log already has every request.
	seen map[string]time.Time
}

// Saw notes that agent name authenticated at t.
func (c *Registry) Saw(name string, t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]time.Time{}
	}
	c.seen[name] = t
}

// LastSeen is when agent name last authenticated in this process.
func (c *Registry) LastSeen(name string) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seen[name]
}

// Hold keeps the token of an approved pairing until the agent collects it.
func (c *Registry) Hold(name, token string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pickup == nil {
		c.pickup = map[string]string{}
	}
	c.pickup[name] = token
}

// Collect returns the token held for agent name, once.
func (c *Registry) Collect(name string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.pickup[name]
	delete(c.pickup, name)
	return t, ok
}

// Drop forgets the cached registrations after a change.
func (c *Registry) Drop() {
	c.mu.Lock()
	c.byHash, c.names = nil, nil
	c.mu.Unlock()
}

// load fills the maps; c.mu must be held.
func (c *Registry) load() error {
	if c.byHash != nil {
		return nil
	}
	all, err := c.v.Agents()
	if err != nil {
		return err
	}
	c.byHash = make(map[string]vault.Agent, len(all))
	c.names = make(map[string]vault.Agent, len(all))
	for _, a := range all {
		c.names[a.Name] = a
		if a.TokenHash != "" {
			c.byHash[a.TokenHash] = a
		}
	}
	return nil
}

// All returns the registrations by name as they are now. The map is
// never changed once built (a change builds a new one), so the caller may
// read it without the lock.
func (c *Registry) All() map[string]vault.Agent {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.load() != nil {
		return nil
	}
	return c.names
}

// ByName returns the registration of agent name.
func (c *Registry) ByName(name string) (vault.Agent, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.load() != nil {
		return vault.Agent{}, false
	}
	a, ok := c.names[name]
	return a, ok
}

// ByHash returns the agent with token hash h, loading the registry once.
func (c *Registry) ByHash(h string) (vault.Agent, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.load(); err != nil {
		return vault.Agent{}, false, err
	}
	a, ok := c.byHash[h]
	return a, ok, nil
}

// ValidName matches an agent's name: 1 to 64 letters, digits, dots,
// dashes or underscores, beginning with a letter or digit.
var ValidName = regexp.MustCompile(`^[a-zA-Z0-9][a-zA-Z0-9._-]{0,63}$`)

// TokenPrefix makes Engram tokens recognisable to secret scanners.
const TokenPrefix = "engram_"

// NewToken returns a new random token and its hash (what the registry
// keeps).
func NewToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token = TokenPrefix + base64.RawURLEncoding.EncodeToString(b)
	return token, HashToken(token), nil
}

// HashToken is the hash of token the registry keeps.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Grants fills in the default grants and checks them; bad says what is
// wrong, or is empty.
func Grants(fields []vault.Field, read []vault.Partition) ([]vault.Field, []vault.Partition, string) {
	if fields == nil {
		fields = policy.DefaultAgentFields
	}
	for _, f := range fields {
		if !slices.Contains(vault.AgentFields, f) {
			return nil, nil, fmt.Sprintf("field %q cannot be granted to an agent", f)
		}
	}
	if read == nil {
		read = []vault.Partition{vault.Public, vault.Internal}
	}
	for _, p := range read {
		if !slices.Contains(vault.LivePartitions, p) {
			return nil, nil, fmt.Sprintf("unknown partition %q", p)
		}
	}
	return fields, read, ""
}
