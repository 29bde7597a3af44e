//go:build !((dragonfly || freebsd || linux || netbsd || openbsd) && !android)

package app

// sessionBus: the keyring on this system does not go through D-Bus.
func sessionBus() error { return nil }
