package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
)

// runtimeDir holds the address file and the Unix socket (app.RuntimeDir).
func (c *cmd) runtimeDir() (string, error) { return app.RuntimeDir(c.o.Getenv) }

// serve runs Engram without its window until interrupted: the loopback
// API, the recall index, the daily lifecycle sweep and the screen-lock
// watch, all from app/host as in the desktop app (without its idle lock).
func (c *cmd) serve(args []string) error {
	fs := newFlags("serve")
	addr := fs.String("addr", "", "loopback address to listen on (default: the settings', else 127.0.0.1:7474)")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
		return err
	}
	dataDir, err := app.DataDir(c.o.Getenv)
	if err != nil {
		return err
	}
	rt, err := c.runtimeDir()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(c.o.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := host.Open(c.ctx, host.Config{DataDir: dataDir, RuntimeDir: rt, KeyStore: c.keyStore(), Now: c.o.Now,
		Getenv: c.o.Getenv, Log: log, Addr: *addr, NoAutoLock: true, BackupWorkFactor: c.o.BackupWorkFactor, Commands: Commands(c.o)})
	if errors.Is(err, host.ErrNoVault) {
		return fail(exitFailed, "no vault at %s; create one with 'engram init'", host.VaultPath(dataDir))
	}
	if err != nil {
		return err
	}
	defer h.Close()
	if err := c.unlockVault(h.Vault(), unlockIfEasy, *passFile, true); err != nil {
		return err
	}
	for _, w := range h.Warnings {
		fmt.Fprintf(c.o.Stderr, "engram: %s\n", w)
	}
	if st := h.Service().RecallStatus(); st.Semantic {
		fmt.Fprintf(c.o.Stderr, "engram: recall by meaning with %s\n", modelLine(st))
	}
	ctx, stop := context.WithCancelCause(c.ctx)
	defer stop(nil)
	socket := filepath.Join(rt, "engram.sock")
	h.Subscribe(func(e host.Event) {
		if e.Server {
			listening, err := h.ServerStatus()
			if err != nil {
				stop(err)
				return
			}
			state := "unlocked"
			if h.Locked() {
				state = "locked: sensitive memories answer 'locked' until you set ENGRAM_PASSPHRASE or use the keyring"
			}
			fmt.Fprintf(c.o.Stderr, "engram: serving on http://%s and %s (vault %s)\n", listening, socket, state)
		}
		if s := e.Swept; s != nil && (s.Archived+s.Purged > 0 || s.Err != "") {
			fmt.Fprintf(c.o.Stderr, "engram: sweep archived %d, purged %d %s\n", s.Archived, s.Purged, s.Err)
		}
	})
	h.Start(ctx)
	<-ctx.Done()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return fail(exitFailed, "%v", err)
	}
	fmt.Fprintln(c.o.Stderr, "engram: stopped")
	return nil
}
