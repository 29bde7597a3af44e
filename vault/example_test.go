package vault_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/engram-app/engram/vault"
)

func Example() {
	dir, _ := os.MkdirTemp("", "engram-example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	path := filepath.Join(dir, "vault.db")

	// A real vault would leave KDF zero to calibrate Argon2id to ~0.75 s.
	cheap := vault.KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}
	v, err := vault.Create(ctx, path, []byte("correct horse battery staple"), vault.CreateOptions{KDF: cheap})
	if err != nil {
		fmt.Println(err)
		return
	}
	me := vault.Actor{Agent: vault.AgentOperator}
	m, _ := v.Add(vault.Memory{
		Content: "Alice's phone number is 555-0100", Kind: vault.Fact, Field: vault.Learnings,
		Tier: vault.Semantic, Partition: vault.Sensitive, Source: vault.Source{Type: vault.SourceExplicitSave},
		Trust: vault.TrustOperator, Confidence: 0.95,
	}, me)
	v.Close()

	v, _ = vault.Open(path, vault.Options{})
	defer v.Close()
	_, err = v.Get(m.ID, me)
	fmt.Println("locked:", err != nil)
	if err := v.Unlock(ctx, []byte("correct horse battery staple")); err != nil {
		fmt.Println(err)
		return
	}
	got, _ := v.Get(m.ID, me)
	fmt.Println(got.Content)
	r, _ := v.VerifyAudit()
	fmt.Println("audit entries:", r.Entries, "intact:", r.OK())
	// Output:
	// locked: true
	// Alice's phone number is 555-0100
	// audit entries: 4 intact: true
}
