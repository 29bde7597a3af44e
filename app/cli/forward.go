package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/server"
	"github.com/engram-app/engram/vault"
)

// errNoServer says no running Engram could be asked.
var errNoServer = errors.New("no running Engram")

// forward sends an operator request to the Engram process that holds the
// vault (engram serve or the desktop app), authenticated with the admin
// token it wrote to the runtime directory, and decodes the JSON answer.
func (c *cmd) forward(method, path string, out any) error {
	rt, err := c.runtimeDir()
	if err != nil {
		return err
	}
	addr, err := os.ReadFile(filepath.Join(rt, "engram.addr"))
	if err != nil {
		return errNoServer
	}
	token, err := os.ReadFile(filepath.Join(rt, server.AdminTokenFile))
	if err != nil {
		return errNoServer
	}
	ctx, cancel := context.WithTimeout(c.ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, "http://"+strings.TrimSpace(string(addr))+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", errNoServer, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, out)
}

// decidePairing approves or denies a pending agent, in this process or
// through the running Engram that holds the vault.
func (c *cmd) decidePairing(name string, approve bool) error {
	err := c.open()
	if errors.Is(err, vault.ErrInUse) {
		var r app.AgentResponse
		decision := map[bool]string{true: "approve", false: "deny"}[approve]
		if ferr := c.forward("POST", "/v1/admin/agents/"+name+"/"+decision, &r); ferr != nil {
			return err // say the vault is in use: nothing answered in its place
		}
		return c.printDecision(r, approve)
	}
	if err != nil {
		return err
	}
	return c.printDecision(c.svc.DecidePairing(c.ctx, operator, name, approve), approve)
}

func (c *cmd) printDecision(r app.AgentResponse, approve bool) error {
	if err := fromResponse(r.Response); err != nil {
		return err
	}
	if approve {
		return printf(c.out, "approved %s: it receives its token when it next asks\n", r.Agent.Name)
	}
	return printf(c.out, "denied %s\n", r.Agent.Name)
}
