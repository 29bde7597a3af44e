package cli

import (
	"fmt"
	"path/filepath"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
)

// runtimeDir holds the address file and the Unix socket (app.RuntimeDir).
func (c *cmd) runtimeDir() (string, error) { return app.RuntimeDir(c.o.Getenv) }

// serve runs the loopback API until interrupted.
func (c *cmd) serve(args []string) error {
	fs := newFlags("serve")
	addr := fs.String("addr", server.DefaultAddr, "loopback address to listen on")
	passFile := fs.String("passphrase-file", "", "read the passphrase from this file")
	if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
		return err
	}
	if err := c.openWithRecall(unlockIfEasy, *passFile); err != nil {
		return err
	}
	rt, err := c.runtimeDir()
	if err != nil {
		return err
	}
	socket, addrFile := filepath.Join(rt, "engram.sock"), filepath.Join(rt, "engram.addr")
	state := "unlocked"
	if c.v.Locked() {
		state = "locked: sensitive memories answer 'locked' until you set ENGRAM_PASSPHRASE or use the keyring"
	}
	fmt.Fprintf(c.o.Stderr, "engram: serving on http://%s and %s (vault %s)\n", *addr, socket, state)
	if err := server.New(c.svc, server.Options{}).Serve(c.ctx, *addr, socket, addrFile); err != nil {
		return fail(exitFailed, "%v", err)
	}
	fmt.Fprintln(c.o.Stderr, "engram: stopped")
	return nil
}
