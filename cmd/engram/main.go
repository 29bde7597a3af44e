// Command engram is the Engram memory vault: its command line (and, later,
// its desktop app).
package main

import (
	"os"

	"github.com/engram-app/engram/app/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
