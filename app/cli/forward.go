package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
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
	return c.forwardBody(method, path, nil, out)
}

// forwardBody is forward with a JSON request body (nil for none).
func (c *cmd) forwardBody(method, path string, body, out any) error {
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
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://"+strings.TrimSpace(string(addr))+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
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

// orForward opens the vault and runs local; when another Engram holds
// the vault it sends the request to that one instead (remote), so the
// user's command acts on the running Engram with the same result. When
// nothing answers there, the command says the vault is in use.
func (c *cmd) orForward(local func() error, remote func() error) error {
	err := c.open()
	if errors.Is(err, vault.ErrInUse) {
		if ferr := remote(); ferr != nil {
			if errors.Is(ferr, errNoServer) {
				return err
			}
			return ferr
		}
		return nil
	}
	if err != nil {
		return err
	}
	return local()
}

// decidePairing approves or denies a pending agent, in this process or
// through the running Engram that holds the vault.
func (c *cmd) decidePairing(name string, approve bool) error {
	var r app.AgentResponse
	decision := map[bool]string{true: "approve", false: "deny"}[approve]
	return c.orForward(func() error {
		return c.printDecision(c.svc.DecidePairing(c.ctx, operator, name, approve), approve)
	}, func() error {
		if err := c.forward("POST", "/v1/admin/agents/"+url.PathEscape(name)+"/"+decision, &r); err != nil {
			return err
		}
		return c.printDecision(r, approve)
	})
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
