// Command engram is the Engram memory vault: with no arguments its desktop
// app, otherwise its command line (see 'engram help').
package main

import (
	"os"

	"github.com/engram-app/engram/app/cli"
	_ "github.com/engram-app/engram/cmd/engram/internal/localeenv" // before Fyne's init
	"github.com/engram-app/engram/ui"
)

func main() {
	if len(os.Args) == 1 {
		// The app runs the user's engram commands while it holds the vault.
		os.Exit(ui.Main(os.Stderr, cli.Commands(cli.Default())))
	}
	os.Exit(cli.Main(os.Args[1:]))
}
