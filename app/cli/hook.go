package cli

import (
	"errors"
	"fmt"

	"github.com/engram-app/engram/app/connect"
	"github.com/engram-app/engram/app/hooks"
)

// hookCmd runs `engram hook EVENT`: answer a client's lifecycle hook (the
// client's JSON on standard input, its answer on standard output), as
// engram-hook does (hooks.Main). It always exits 0: a hook must never stop
// the agent.
func (c *cmd) hookCmd(args []string) error {
	for _, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			return &helpRequested{"Usage: engram " + hooks.Usage + "\nEVENT is one of SessionStart, UserPromptSubmit, PreCompact, Stop, SessionEnd, or the client's own name for it (BeforeAgent, beforeSubmitPrompt, pre_user_prompt, ...); --client (claude-code, codex, gemini, cursor, vscode, windsurf) sets the input read and the answer printed; the client's JSON comes on standard input.\n"}
		}
	}
	hooks.Main(c.ctx, args, hooks.Env{
		Stdin: c.o.Stdin, Stdout: c.o.Stdout, Stderr: c.o.Stderr, Getenv: c.o.Getenv, Now: c.o.Now,
		Token: func(agent string) (string, error) {
			tk, err := c.tokens()
			if err != nil {
				return "", err
			}
			t, err := tk.Load(agent)
			if errors.Is(err, connect.ErrNoToken) {
				return "", fmt.Errorf("no token stored for agent %s", agent)
			}
			return t, err
		},
	})
	return nil
}
