package ui

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
	"github.com/engram-app/engram/assets"
)

// AppID is the desktop app's identifier (FyneApp.toml says the same).
const AppID = "dev.engram.desktop"

// Main runs the desktop app until the user quits and returns the exit
// code. Without a display it says so and points to 'engram serve'.
// commands runs the engram commands forwarded to the app while it holds
// the vault (host.Config.Commands).
func Main(stderr io.Writer, commands host.Commands) int {
	getenv := os.Getenv
	if !HasDisplay(getenv) {
		fmt.Fprintln(stderr, "engram: no display found (DISPLAY and WAYLAND_DISPLAY are unset): the desktop app needs a graphical session.")
		fmt.Fprintln(stderr, "Run 'engram serve' to serve agents without it, or 'engram help' for the command line.")
		return 1
	}
	dataDir, err := app.DataDir(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "engram: %v\n", err)
		return 1
	}
	rt, err := app.RuntimeDir(getenv)
	if err != nil {
		fmt.Fprintf(stderr, "engram: %v\n", err)
		return 1
	}
	cfg := host.Config{DataDir: dataDir, RuntimeDir: rt, Log: slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})), Commands: commands}
	if getenv("ENGRAM_NO_KEYRING") != "" {
		cfg.KeyStore = app.NoKeyring{Reason: "ENGRAM_NO_KEYRING is set"}
	}
	if raise(rt) {
		fmt.Fprintln(stderr, "engram: Engram is already open; its window was brought forward.")
		return 0
	}
	fa := fyneapp.NewWithID(AppID)
	fa.SetIcon(assets.Icon)
	u := New(fa, cfg)
	if getenv("ENGRAM_NO_KEYRING") != "" {
		u.secrets = noSecrets{"ENGRAM_NO_KEYRING is set"}
	}
	u.win.SetIcon(assets.Icon)
	if stop, err := listenInstance(rt, func() {
		fyne.Do(func() { u.win.Show(); u.win.RequestFocus() })
	}); err == nil {
		defer stop()
	}
	stopTrim := make(chan struct{})
	go trimMemory(stopTrim, func() {
		fyne.Do(func() {
			if h := u.h; h != nil {
				go h.ReleasePages()
			}
		})
	})
	defer close(stopTrim)
	u.Start()
	u.win.ShowAndRun()
	u.Close()
	return 0
}
