package hooks

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/zalando/go-keyring"
)

// keyringService is the OS keyring service Engram keeps its secrets
// under (app.OSSecrets).
const keyringService = "engram"

var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// StoredToken is Env.Token for a process that does not link package app
// (engram-hook): the token engram connect kept for an agent
// (connect.Tokens), from the OS keyring under "agent-token:NAME@DATADIR",
// else from DATADIR/agents/NAME.token. ENGRAM_NO_KEYRING skips the keyring.
func StoredToken(getenv func(string) string) func(agent string) (string, error) {
	return func(agent string) (string, error) {
		if !agentName.MatchString(agent) {
			return "", fmt.Errorf("invalid agent name %q", agent)
		}
		dir := DataDir(getenv)
		if dir == "" {
			return "", errors.New("cannot find the data directory: set ENGRAM_HOME")
		}
		if getenv("ENGRAM_NO_KEYRING") == "" && sessionBus(getenv) {
			s, err := keyring.Get(keyringService, "agent-token:"+agent+"@"+dir)
			if err == nil && strings.TrimSpace(s) != "" {
				return strings.TrimSpace(s), nil
			}
		}
		b, err := os.ReadFile(filepath.Join(dir, "agents", agent+".token"))
		if err != nil {
			return "", fmt.Errorf("no token stored for agent %s", agent)
		}
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
		return "", fmt.Errorf("no token stored for agent %s", agent)
	}
}

// sessionBus reports whether a D-Bus session bus can be reached without
// starting one (as app does: go-keyring would otherwise run dbus-launch).
func sessionBus(getenv func(string) string) bool {
	if getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return true
	}
	if dir := getenv("XDG_RUNTIME_DIR"); dir != "" {
		if fi, err := os.Stat(filepath.Join(dir, "bus")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return true
		}
	}
	return false
}
