package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// OpenAI embeds through an OpenAI-compatible /v1/embeddings endpoint on
// the local machine: Ollama, LM Studio, llama.cpp's server and the like.
// Only loopback addresses are dialled, whatever the URL's host resolves
// to, so memories never leave the host. Safe for concurrent use.
type OpenAI struct {
	endpoint string
	model    string
	apiKey   string // sent as a bearer token when set (tests; no setting sets it yet)
	batch    int
	client   *http.Client
	dim      atomic.Int64 // learned from the first answer
}

// maxResponse bounds how much of an answer is read.
const maxResponse = 256 << 20

// NewOpenAI returns an embedder for the model served at baseURL, such as
// "http://localhost:11434" (Ollama) or "http://127.0.0.1:1234/v1" (LM
// Studio). The path "/v1/embeddings" is appended unless the URL already
// ends in "/v1" or "/embeddings". It returns an error wrapping
// ErrNotLoopback if the host is not localhost or a loopback address.
func NewOpenAI(baseURL, model string) (*OpenAI, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("openai embedder: %w: bad URL: %v", ErrEndpoint, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("openai embedder: %w: scheme %q, want http or https", ErrEndpoint, u.Scheme)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("openai embedder: %w: URL must not carry credentials, query or fragment", ErrEndpoint)
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("openai embedder: %w: host %q", ErrNotLoopback, u.Hostname())
	}
	if model == "" {
		return nil, fmt.Errorf("openai embedder: %w: no model name", ErrEndpoint)
	}
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/embeddings"):
	case strings.HasSuffix(p, "/v1"):
		p += "/embeddings"
	default:
		p += "/v1/embeddings"
	}
	u.Path = p

	dialer := &net.Dialer{
		Timeout: 5 * time.Second,
		// Checked on the address actually dialled: a name that resolves
		// elsewhere, or a redirect, cannot reach another host.
		Control: func(_, address string, _ syscall.RawConn) error {
			host, _, err := net.SplitHostPort(address)
			if err != nil {
				return err
			}
			if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
				return fmt.Errorf("%w: dial %s", ErrNotLoopback, host)
			}
			return nil
		},
	}
	o := &OpenAI{
		endpoint: u.String(),
		model:    model,
		batch:    64,
		client: &http.Client{
			Timeout: 60 * time.Second,
			Transport: &http.Transport{
				Proxy:               nil, // never through a proxy
				DialContext:         dialer.DialContext,
				MaxIdleConnsPerHost: 4,
				IdleConnTimeout:     90 * time.Second,
			},
			CheckRedirect: func(req *http.Request, _ []*http.Request) error {
				if !isLoopbackHost(req.URL.Hostname()) {
					return fmt.Errorf("%w: redirect to %q", ErrNotLoopback, req.URL.Hostname())
				}
				return nil
			},
		},
	}
	return o, nil
}

func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Name is "openai:" followed by the model name.
func (o *OpenAI) Name() string { return "openai:" + o.model }

// Dim is the vector length, learned from the
// first successful Embed (0 before it).
func (o *OpenAI) Dim() int { return int(o.dim.Load()) }

type embeddingsRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type embeddingsResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
}

// Embed sends the texts in batches and returns their L2-normalised
// vectors. Errors wrap ErrEndpoint (or ErrNotLoopback, ErrDimension, or the
// context's error); they name the HTTP status but never echo the texts or
// the server's message, which may quote them.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += o.batch {
		hi := min(lo+o.batch, len(texts))
		vecs, err := o.embedBatch(ctx, texts[lo:hi])
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (o *OpenAI) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingsRequest{Model: o.model, Input: texts, EncodingFormat: "float"})
	if err != nil {
		return nil, fmt.Errorf("openai embed: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("openai embed: %w: %v", ErrEndpoint, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if o.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+o.apiKey)
	}
	resp, err := o.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("openai embed: %w", ctx.Err())
		}
		if errors.Is(err, ErrNotLoopback) {
			return nil, fmt.Errorf("openai embed: %w", ErrNotLoopback)
		}
		return nil, fmt.Errorf("openai embed: %w: %s unreachable: %v", ErrEndpoint, o.endpoint, errors.Unwrap(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		hint := ""
		switch resp.StatusCode {
		case http.StatusNotFound:
			hint = fmt.Sprintf(" (is model %q installed, and does the server offer /v1/embeddings?)", o.model)
		case http.StatusUnauthorized, http.StatusForbidden:
			hint = " (API key missing or wrong)"
		}
		return nil, fmt.Errorf("openai embed: %w: %s answered %s%s", ErrEndpoint, o.endpoint, resp.Status, hint)
	}
	var er embeddingsResponse
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxResponse))
	if err := dec.Decode(&er); err != nil {
		return nil, fmt.Errorf("openai embed: %w: malformed response: %v", ErrEndpoint, err)
	}
	if len(er.Data) != len(texts) {
		return nil, fmt.Errorf("openai embed: %w: %d vectors for %d texts", ErrEndpoint, len(er.Data), len(texts))
	}
	out := make([][]float32, len(texts))
	for _, d := range er.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("openai embed: %w: bad or repeated index %d", ErrEndpoint, d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("openai embed: %w: empty vector", ErrEndpoint)
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("openai embed: %w: non-finite value", ErrEndpoint)
			}
			v[i] = float32(x)
		}
		normalize(v)
		out[d.Index] = v
	}
	n := len(out[0])
	for _, v := range out {
		if len(v) != n {
			return nil, fmt.Errorf("openai embed: %w: vectors of length %d and %d in one answer", ErrDimension, n, len(v))
		}
	}
	if !o.dim.CompareAndSwap(0, int64(n)) && o.Dim() != n {
		return nil, fmt.Errorf("openai embed: %w: got length %d, want %d", ErrDimension, n, o.Dim())
	}
	return out, nil
}
