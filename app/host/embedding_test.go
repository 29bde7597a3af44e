package host

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/engram-app/engram/app"
)

// fakeEmbeddings is a local OpenAI-compatible /v1/embeddings endpoint
// that turns each text into a small vector of letter counts.
func fakeEmbeddings(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		type item struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		}
		var out struct {
			Data  []item `json:"data"`
			Model string `json:"model"`
		}
		for i, text := range req.Input {
			v := make([]float64, 8)
			for _, c := range text {
				v[int(c)%8]++
			}
			out.Data = append(out.Data, item{i, v})
		}
		out.Model = req.Model
		json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestEmbeddingProgressEvents: after the embedder changes, the next start
// embeds every memory in the background and the host reports the
// progress to its subscribers, ending with all of them done.
func TestEmbeddingProgressEvents(t *testing.T) {
	h, cfg, _ := testHost(t)
	const n = 40
	for i := range n {
		if r := h.Service().Store(t.Context(), h.Operator(), app.StoreInput{Content: fmt.Sprintf("note %d: the build takes %d minutes", i, i)}); !r.OK() {
			t.Fatal(r.Response)
		}
	}
	s := h.Settings()
	s.Embedder, s.EmbedderModel = fakeEmbeddings(t).URL, "letters-8"
	if err := h.SaveSettings(s); err != nil {
		t.Fatal(err)
	}
	h.Close()

	h, err := Open(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if ok, err := h.TryKeyring(); !ok || err != nil {
		t.Fatalf("TryKeyring = %v, %v", ok, err)
	}
	events := make(chan app.EmbedProgress, 1000)
	h.Subscribe(func(e Event) {
		if e.Embedding != nil {
			events <- *e.Embedding
		}
	})
	h.Start(t.Context())
	timeout := time.After(time.Minute)
	for {
		select {
		case p := <-events:
			if p.Total != n || p.Model == "" {
				t.Fatalf("progress %+v, want %d memories to embed with a model", p, n)
			}
			if !p.Running {
				if p.Done != n || p.Err != "" {
					t.Fatalf("final progress %+v, want all %d done", p, n)
				}
				return
			}
		case <-timeout:
			t.Fatalf("no final progress event; last known %+v", h.Service().EmbedProgress())
		}
	}
}
