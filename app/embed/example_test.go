package embed_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/engram-app/engram/app/embed"
)

// Recall with the built-in model: embed the memories once, then rank them
// by cosine to the embedded query. (Not run by go test: it needs the model,
// which fetch-model.sh installs.)
func ExampleLoadUSE() {
	use, err := embed.LoadUSE(embed.DefaultModelDir())
	if err != nil {
		log.Fatal(err) // wraps embed.ErrModelNotFound until fetch-model.sh has run
	}
	ctx := context.Background()
	memories := []string{
		"The user prefers dark mode in every editor.",
		"The staging database password rotates on Mondays.",
	}
	vecs, err := use.Embed(ctx, memories)
	if err != nil {
		log.Fatal(err)
	}
	q, err := use.Embed(ctx, []string{"which colour theme does the user like?"})
	if err != nil {
		log.Fatal(err)
	}
	for i, v := range vecs {
		fmt.Printf("%.2f %s\n", embed.Cosine(q[0], v), memories[i])
	}
}

// A local OpenAI-compatible server (here a stand-in for Ollama) as the
// embedder. Only loopback URLs are accepted.
func ExampleNewOpenAI() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"data": [{"index": 0, "embedding": [3, 4]}, {"index": 1, "embedding": [4, 3]}]}`)
	}))
	defer srv.Close()

	e, err := embed.NewOpenAI(srv.URL, "nomic-embed-text")
	if err != nil {
		log.Fatal(err)
	}
	vecs, err := e.Embed(context.Background(), []string{"first memory", "second memory"})
	if err != nil {
		log.Fatal(err)
	}
	b, _ := json.Marshal(vecs)
	fmt.Println(e.Name(), e.Dim(), string(b))
	fmt.Printf("cosine %.2f\n", embed.Cosine(vecs[0], vecs[1]))

	_, err = embed.NewOpenAI("https://api.example.com/v1", "m")
	fmt.Println(errors.Is(err, embed.ErrNotLoopback))
	// Output:
	// openai:nomic-embed-text 2 [[0.6,0.8],[0.8,0.6]]
	// cosine 0.96
	// true
}
