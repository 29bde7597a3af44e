package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Client is Engram reached over its loopback agent API with one agent's
// token (the Engram a hook calls).
type Client struct {
	// Base is the API's address, e.g. "http://127.0.0.1:7474".
	Base string
	// Token is the agent's token (never written anywhere by a hook).
	Token string
	// HTTP is the HTTP client (default: one without a timeout of its own;
	// the context bounds each call).
	HTTP *http.Client
	// Starting, when set, reports whether the Engram at Base is starting
	// (it holds its vault and will listen at Base, but does not yet): a
	// call that finds no server then tries again until Wait has passed.
	// Without it, or when it says no, a refused connection fails at once
	// (after one more try, in case it began to listen meanwhile).
	Starting func() bool
	// Wait bounds how long a call waits for a starting Engram.
	Wait time.Duration
}

// Briefing asks POST /v1/briefing.
func (c *Client) Briefing(ctx context.Context, session string, in BriefingInput) (BriefingResponse, error) {
	var out BriefingResponse
	return out, c.call(ctx, http.MethodPost, "/v1/briefing", session, in, &out)
}

// Recall asks POST /v1/recall.
func (c *Client) Recall(ctx context.Context, session string, in RecallInput) (RecallResponse, error) {
	var out RecallResponse
	return out, c.call(ctx, http.MethodPost, "/v1/recall", session, in, &out)
}

// Store asks POST /v1/memories.
func (c *Client) Store(ctx context.Context, session string, in StoreInput) (StoreResponse, error) {
	var out StoreResponse
	return out, c.call(ctx, http.MethodPost, "/v1/memories", session, in, &out)
}

// Health asks GET /v1/health: nil when Engram answers that it runs.
func (c *Client) Health(ctx context.Context) error {
	var out struct {
		Status string `json:"status"`
	}
	if err := c.call(ctx, http.MethodGet, "/v1/health", "", nil, &out); err != nil {
		return err
	}
	if Status(out.Status) != StatusOK {
		return fmt.Errorf("%w: its health is %q", ErrUnavailable, out.Status)
	}
	return nil
}

func (c *Client) call(ctx context.Context, method, path, session string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	deadline := time.Now().Add(c.Wait)
	lastTry := false
	for {
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(body)
		}
		req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.Base, "/")+path, rd)
		if err != nil {
			return err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		req.Header.Set("Authorization", "Bearer "+c.Token)
		if session != "" {
			req.Header.Set("Engram-Session", session)
		}
		resp, err := hc.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("%w: it did not answer in time", ErrUnavailable)
			}
			if c.Starting == nil {
				return fmt.Errorf("%w: %v", ErrUnavailable, err)
			}
			if !c.Starting() {
				// It may have begun to listen, and stopped saying it
				// starts, since this call was refused: one more try
				// tells.
				if lastTry {
					return fmt.Errorf("%w: %v", ErrUnavailable, err)
				}
				lastTry = true
				continue
			}
			if !time.Now().Before(deadline) {
				return fmt.Errorf("%w: it is starting and did not answer in time", ErrUnavailable)
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%w: it is starting and did not answer in time", ErrUnavailable)
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUnavailable, err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%w: an answer that is not Engram's (HTTP %d)", ErrUnavailable, resp.StatusCode)
		}
		return nil
	}
}

// IsUnavailable reports whether err says Engram could not be reached.
func IsUnavailable(err error) bool { return errors.Is(err, ErrUnavailable) }
