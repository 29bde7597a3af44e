package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer answers /v1/embeddings with vector i = [len(text), i+1, 0]
// (unnormalised), listing them in reverse order to exercise the index.
func fakeServer(t *testing.T, requests *atomic.Int32) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sekrit" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		var req embeddingsRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "nomic" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		requests.Add(1)
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		var data []item
		for i := len(req.Input) - 1; i >= 0; i-- {
			data = append(data, item{i, []float64{float64(len(req.Input[i])), float64(i + 1), 0}})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestOpenAIEmbed(t *testing.T) {
	var requests atomic.Int32
	srv := fakeServer(t, &requests)
	tests := []struct {
		name string
		base string
	}{
		{"host only", srv.URL},
		{"v1", srv.URL + "/v1"},
		{"full path", srv.URL + "/v1/embeddings/"},
		{"localhost", strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			requests.Store(0)
			o, err := NewOpenAI(tc.base, "nomic")
			if err != nil {
				t.Fatal(err)
			}
			o.apiKey, o.batch = "sekrit", 2
			if o.Dim() != 0 {
				t.Errorf("Dim() before Embed = %d, want 0", o.Dim())
			}
			texts := []string{"a", "bb", "ccc", "dddd", "eeeee"}
			got, err := o.Embed(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if n := requests.Load(); n != 3 {
				t.Errorf("requests = %d, want 3 (batches of 2)", n)
			}
			for i, v := range got {
				// Within its batch, text i has index i%2.
				want := []float32{float32(len(texts[i])), float32(i%2 + 1), 0}
				normalize(want)
				if c := Cosine(v, want); c < 0.99999 {
					t.Errorf("vector %d = %v, want direction %v", i, v, want)
				}
				var sq float64
				for _, x := range v {
					sq += float64(x) * float64(x)
				}
				if n := math.Sqrt(sq); math.Abs(n-1) > 1e-6 {
					t.Errorf("vector %d has norm %v, want 1", i, n)
				}
			}
			if o.Dim() != 3 || o.Name() != "openai:nomic" {
				t.Errorf("Dim, Name = %d, %q; want 3, %q", o.Dim(), o.Name(), "openai:nomic")
			}
		})
	}
}

func TestNewOpenAIRefusesRemote(t *testing.T) {
	tests := []struct {
		url  string
		want error
	}{
		{"http://example.com", ErrNotLoopback},
		{"https://api.openai.com/v1", ErrNotLoopback},
		{"http://10.0.0.1:11434", ErrNotLoopback},
		{"http://0.0.0.0:11434", ErrNotLoopback},
		{"http://localhost.example.com:11434", ErrNotLoopback},
		{"http://[2001:db8::1]:8080", ErrNotLoopback},
		{"ftp://localhost/", ErrEndpoint},
		{"http://user:pw@localhost:11434", ErrEndpoint},
		{"://", ErrEndpoint},
	}
	for _, tc := range tests {
		t.Run(tc.url, func(t *testing.T) {
			if _, err := NewOpenAI(tc.url, "m"); !errors.Is(err, tc.want) {
				t.Errorf("NewOpenAI(%q) = %v, want %v", tc.url, err, tc.want)
			}
		})
	}
	for _, ok := range []string{"http://127.0.0.1:1", "http://127.8.9.10:1", "http://[::1]:1", "https://LOCALHOST:1/v1"} {
		if _, err := NewOpenAI(ok, "m"); err != nil {
			t.Errorf("NewOpenAI(%q) = %v, want nil", ok, err)
		}
	}
	if _, err := NewOpenAI("http://localhost:1", ""); !errors.Is(err, ErrEndpoint) {
		t.Errorf("NewOpenAI with no model = %v, want ErrEndpoint", err)
	}
}

func TestOpenAIErrors(t *testing.T) {
	tests := []struct {
		name    string
		handler http.HandlerFunc
		dim     int64 // the length the embedder expects; 0 learns it
		want    error
	}{
		{"server error", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom: secret memory text", http.StatusInternalServerError)
		}, 0, ErrEndpoint},
		{"not found", func(w http.ResponseWriter, r *http.Request) {
			http.NotFound(w, r)
		}, 0, ErrEndpoint},
		{"malformed", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data": [`)
		}, 0, ErrEndpoint},
		{"too few vectors", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data": [{"index": 0, "embedding": [1, 2]}]}`)
		}, 0, ErrEndpoint},
		{"repeated index", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data": [{"index": 0, "embedding": [1]}, {"index": 0, "embedding": [1]}]}`)
		}, 0, ErrEndpoint},
		{"empty vector", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data": [{"index": 0, "embedding": []}, {"index": 1, "embedding": []}]}`)
		}, 0, ErrEndpoint},
		{"ragged", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 1, "embedding": [1]}]}`)
		}, 0, ErrDimension},
		{"wrong dim", func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprint(w, `{"data": [{"index": 0, "embedding": [1, 2]}, {"index": 1, "embedding": [3, 4]}]}`)
		}, 768, ErrDimension},
		{"redirect off host", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "http://192.0.2.1/v1/embeddings", http.StatusTemporaryRedirect)
		}, 0, ErrNotLoopback},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			o, err := NewOpenAI(srv.URL, "m")
			if err != nil {
				t.Fatal(err)
			}
			o.dim.Store(tc.dim)
			_, err = o.Embed(context.Background(), []string{"secret memory text", "two"})
			if !errors.Is(err, tc.want) {
				t.Fatalf("Embed = %v, want %v", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret memory text") {
				t.Errorf("error %q leaks the text", err)
			}
		})
	}
}

func TestOpenAITimeoutAndCancel(t *testing.T) {
	release := make(chan struct{})
	arrived := make(chan struct{}, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)

	t.Run("client timeout", func(t *testing.T) {
		o, err := NewOpenAI(srv.URL, "m")
		if err != nil {
			t.Fatal(err)
		}
		o.client.Timeout = time.Millisecond
		if _, err := o.Embed(context.Background(), []string{"x"}); !errors.Is(err, ErrEndpoint) {
			t.Errorf("Embed past the timeout = %v, want ErrEndpoint", err)
		}
	})
	t.Run("context cancelled", func(t *testing.T) {
		o, err := NewOpenAI(srv.URL, "m")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			<-arrived
			cancel()
		}()
		if _, err := o.Embed(ctx, []string{"x"}); !errors.Is(err, context.Canceled) {
			t.Errorf("Embed with cancelled context = %v, want context.Canceled", err)
		}
	})
}

func TestCosine(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"same", []float32{1, 2, 3}, []float32{1, 2, 3}, 1},
		{"scaled", []float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{"opposite", []float32{1, 0}, []float32{-1, 0}, -1},
		{"orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"zero", []float32{0, 0}, []float32{1, 1}, 0},
		{"empty", nil, nil, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Cosine(tc.a, tc.b); math.Abs(float64(got-tc.want)) > 1e-6 {
				t.Errorf("Cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
	defer func() {
		if r := recover(); r != ErrDimension {
			t.Errorf("Cosine of different lengths: recover() = %v, want ErrDimension", r)
		}
	}()
	Cosine([]float32{1}, []float32{1, 2})
}

func TestDefaultModelDir(t *testing.T) {
	tests := []struct {
		name                      string
		modelDir, home, xdg, user string
		want                      string
	}{
		{"explicit", "/m", "/e", "/x", "/u", "/m"},
		{"engram home", "", "/e", "/x", "/u", "/e/models/use-lite"},
		{"xdg", "", "", "/x", "/u", "/x/engram/models/use-lite"},
		{"home", "", "", "", "/u", "/u/.local/share/engram/models/use-lite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ENGRAM_MODEL_DIR", tc.modelDir)
			t.Setenv("ENGRAM_HOME", tc.home)
			t.Setenv("XDG_DATA_HOME", tc.xdg)
			t.Setenv("HOME", tc.user)
			if got := DefaultModelDir(); got != tc.want {
				t.Errorf("DefaultModelDir() = %q, want %q", got, tc.want)
			}
		})
	}
}
