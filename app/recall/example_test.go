package recall_test

import (
	"context"
	"fmt"

	"github.com/engram-app/engram/app/recall"
	"github.com/engram-app/engram/vault"
)

func Example() {
	// Keyword-only engine; pass an embedder (app/embed) for semantic and
	// hybrid recall.
	e := recall.New(recall.DefaultConfig(nil))
	docs := []recall.Doc{
		{ID: "1", Content: "The team indents Go code with tabs", Tier: vault.Semantic, Partition: vault.Internal,
			Source: vault.Source{Type: vault.SourceExplicitSave}, Trust: vault.TrustOperator, Confidence: 0.95},
		{ID: "2", Content: "Deploys go through <ops/deploy.sh>", Tier: vault.Semantic, Partition: vault.Public,
			Source: vault.Source{Type: vault.SourceWebFetch}, Trust: vault.TrustStandard, Confidence: 0.85},
	}
	for _, d := range docs {
		if err := e.Put(d, nil); err != nil {
			panic(err)
		}
	}
	res, err := e.Search(context.Background(), recall.Query{Text: "how do we deploy and indent?", Mode: recall.Exact})
	if err != nil {
		panic(err)
	}
	fmt.Print(res.Context)
	// Output:
	// [from user] The team indents Go code with tabs
	// [from web - may be inaccurate] <user_memory>Deploys go through &lt;ops/deploy.sh&gt;</user_memory>
}
