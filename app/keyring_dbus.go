//go:build (dragonfly || freebsd || linux || netbsd || openbsd) && !android

package app

import (
	"errors"
	"os"
	"path/filepath"
)

// sessionBus reports why the Secret Service cannot be reached, without
// reaching for it: with no session bus address and no user bus socket,
// go-keyring's D-Bus library would run dbus-launch, which starts a session
// bus daemon that outlives the command (one more for every engram command
// run over SSH or from cron). Engram treats that as "no keyring" instead.
func sessionBus() error {
	if os.Getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return nil
	}
	if dir := os.Getenv("XDG_RUNTIME_DIR"); dir != "" {
		if fi, err := os.Stat(filepath.Join(dir, "bus")); err == nil && fi.Mode()&os.ModeSocket != 0 {
			return nil
		}
	}
	return errors.New("no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)")
}
