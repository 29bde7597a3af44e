package app

import (
	"errors"
	"os"
	"path/filepath"
)

// VaultFile is the vault's file name inside the data directory.
const VaultFile = "vault.db"

// DataDir is where Engram keeps its vault: $ENGRAM_HOME, else
// $XDG_DATA_HOME/engram, else ~/.local/share/engram (on macOS and Windows,
// the OS's per-user config directory).
func DataDir(getenv func(string) string) (string, error) {
	if d := getenv("ENGRAM_HOME"); d != "" {
		return d, nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "engram"), nil
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".local", "share", "engram"), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", errors.New("cannot find a data directory: set ENGRAM_HOME")
	}
	return filepath.Join(d, "engram"), nil
}

// RuntimeDir holds the running server's address file, admin token and
// Unix socket: $XDG_RUNTIME_DIR/engram, else the data directory.
func RuntimeDir(getenv func(string) string) (string, error) {
	if d := getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "engram"), nil
	}
	return DataDir(getenv)
}
