package connect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/engram-app/engram/app"
)

// Secrets keeps named secrets in the OS keyring (app.OSSecrets). Get
// returns an error wrapping app.ErrNoKey when nothing is stored and one
// wrapping app.ErrKeyringUnavailable when there is no keyring.
type Secrets interface {
	Get(name string) (string, error)
	Set(name, secret string) error
	Delete(name string) error
}

// Tokens keeps the tokens of the agents engram connect registers, so that
// no token sits in a client's file: in the OS keyring, and only where
// there is none in a 0600 file under DataDir/agents.
type Tokens struct {
	Keyring Secrets
	// DataDir is Engram's data directory (app.DataDir).
	DataDir string
}

// Stored says where Save put a token.
type Stored struct {
	// File is the token file when the keyring could not be used; empty
	// when the token is in the keyring.
	File string
	// Why is why the keyring could not be used.
	Why error
}

// keyringName names an agent's token in the keyring: the data directory
// tells apart two vaults with an agent of the same name.
func (t Tokens) keyringName(agent string) string {
	return "agent-token:" + agent + "@" + t.DataDir
}

// File is where the token of agent is kept when there is no keyring.
func (t Tokens) File(agent string) string {
	return filepath.Join(t.DataDir, "agents", agent+".token")
}

// Save keeps agent's token: in the keyring, or where it is unavailable in
// a 0600 file (and says so in Stored).
func (t Tokens) Save(agent, token string) (Stored, error) {
	if err := checkAgent(agent); err != nil {
		return Stored{}, err
	}
	err := t.Keyring.Set(t.keyringName(agent), token)
	if err == nil {
		// A token left in a file from a time without a keyring is stale now.
		if rerr := os.Remove(t.File(agent)); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			return Stored{}, rerr
		}
		return Stored{}, nil
	}
	if !errors.Is(err, app.ErrKeyringUnavailable) {
		return Stored{}, err
	}
	path := t.File(agent)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return Stored{}, err
	}
	if err := writeAtomic(path, []byte(token+"\n"), 0o600); err != nil {
		return Stored{}, err
	}
	return Stored{File: path, Why: err}, nil
}

// Load returns agent's token from the keyring, else from its file; it
// fails with ErrNoToken when neither has it.
func (t Tokens) Load(agent string) (string, error) {
	if err := checkAgent(agent); err != nil {
		return "", err
	}
	s, kerr := t.Keyring.Get(t.keyringName(agent))
	if kerr == nil && strings.TrimSpace(s) != "" {
		return strings.TrimSpace(s), nil
	}
	if kerr != nil && !errors.Is(kerr, app.ErrNoKey) && !errors.Is(kerr, app.ErrKeyringUnavailable) {
		return "", kerr
	}
	b, err := os.ReadFile(t.File(agent))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%w: %s", ErrNoToken, agent)
	}
	if err != nil {
		return "", err
	}
	if tok := strings.TrimSpace(string(b)); tok != "" {
		return tok, nil
	}
	return "", fmt.Errorf("%w: %s", ErrNoToken, agent)
}

// Delete forgets agent's token in the keyring and its file.
func (t Tokens) Delete(agent string) error {
	if err := checkAgent(agent); err != nil {
		return err
	}
	kerr := t.Keyring.Delete(t.keyringName(agent))
	if errors.Is(kerr, app.ErrKeyringUnavailable) {
		kerr = nil
	}
	ferr := os.Remove(t.File(agent))
	if errors.Is(ferr, fs.ErrNotExist) {
		ferr = nil
	}
	return errors.Join(kerr, ferr)
}

var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// checkAgent refuses names that could leave the agents directory; the
// service refuses the same and more when the agent is registered.
func checkAgent(agent string) error {
	if !agentName.MatchString(agent) {
		return fmt.Errorf("invalid agent name %q", agent)
	}
	return nil
}
