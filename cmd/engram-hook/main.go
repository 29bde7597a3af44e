// Command engram-hook answers an agent client's lifecycle hooks, as
// `engram hook` does, in a small program: a client starts it for every
// event (each prompt included), and the engram binary's own start-up
// (the write guard's patterns, the desktop's libraries) would cost more
// than the hook's whole work. engram connect installs it when it lies
// next to engram. It always exits 0.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/engram-app/engram/app/hooks"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	hooks.Main(ctx, os.Args[1:], hooks.Env{
		Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
		Getenv: os.Getenv, Token: hooks.StoredToken(os.Getenv),
	})
}
