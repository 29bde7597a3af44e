package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/engram-app/engram/app/connect"
	"github.com/engram-app/engram/app/mcpserver"
	"github.com/engram-app/engram/app/server"
)

// mcpBridge runs `engram mcp`: MCP over stdio for Claude Code, Cursor and
// other clients, forwarded to the running Engram.
func (c *cmd) mcpBridge(args []string) error {
	fs := newFlags("mcp")
	tokenFile := fs.String("token-file", "", "read the agent token from this file (default $ENGRAM_TOKEN)")
	agent := fs.String("agent", "", "run as this agent, with the token engram connect kept in the OS keyring (or its 0600 file)")
	url := fs.String("url", "", "the running Engram's address (default: from its runtime file, else "+server.DefaultAddr+")")
	if _, err := parse(fs, args, 0, 0, "no arguments"); err != nil {
		return err
	}
	// The token comes from, in order: --token-file, the agent's stored
	// token (--agent), ENGRAM_TOKEN.
	token := strings.TrimSpace(c.o.Getenv("ENGRAM_TOKEN"))
	switch {
	case *tokenFile != "":
		b, err := os.ReadFile(*tokenFile)
		if err != nil {
			return fail(exitFailed, "read the token file: %v", err)
		}
		token = strings.TrimSpace(string(b))
	case *agent != "":
		tk, err := c.tokens()
		if err != nil {
			return err
		}
		token, err = tk.Load(*agent)
		if errors.Is(err, connect.ErrNoToken) {
			return fail(exitAuth, "no token stored for agent %s (in the OS keyring or %s): run 'engram connect CLIENT --agent %s' again", *agent, tk.File(*agent), *agent)
		}
		if err != nil {
			return fail(exitAuth, "the token of agent %s: %v", *agent, err)
		}
	}
	if token == "" {
		return fail(exitAuth, "no agent token: pass --agent NAME (set up by 'engram connect CLIENT'), set ENGRAM_TOKEN or pass --token-file")
	}
	base := *url
	if base == "" {
		base = server.DefaultAddr
		if rt, err := c.runtimeDir(); err == nil {
			if b, err := os.ReadFile(filepath.Join(rt, "engram.addr")); err == nil && len(strings.TrimSpace(string(b))) > 0 {
				base = strings.TrimSpace(string(b))
			}
		}
	}
	if !strings.Contains(base, "://") {
		base = "http://" + base
	}
	endpoint := strings.TrimSuffix(base, "/") + "/mcp"
	in, ok := c.o.Stdin.(io.ReadCloser)
	if !ok {
		in = io.NopCloser(c.o.Stdin)
	}
	err := mcpserver.Bridge(c.ctx, in, nopWriteCloser{c.o.Stdout}, mcpserver.BridgeOptions{Endpoint: endpoint, Token: token, Stderr: c.o.Stderr})
	if err != nil && !errors.Is(err, io.EOF) && c.ctx.Err() == nil {
		return fail(exitFailed, "mcp: %v", err)
	}
	return nil
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
