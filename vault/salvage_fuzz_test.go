package vault

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzSalvage damages a small real vault (one byte changed, then the file
// cut) and salvages it: no panic, no hang, and every memory recovered is
// one the vault held, with content it had, passing the checks Import
// applies.
func FuzzSalvage(f *testing.F) {
	ctx := context.Background()
	pass := []byte("fuzz passphrase")
	path := filepath.Join(f.TempDir(), "vault.db")
	v, err := Create(ctx, path, pass, CreateOptions{KDF: KDFCost{Time: 1, MemoryKiB: 64, Threads: 1}, Options: Options{NoSync: true}})
	if err != nil {
		f.Fatal(err)
	}
	contents := map[string][]string{}
	for i, p := range []Partition{Public, Internal, Sensitive, Sensitive, Internal, Public} {
		m, err := v.Add(Memory{Content: "memory " + string(rune('a'+i)), Kind: Fact, Field: Learnings, Tier: Semantic, Partition: p,
			Source: Source{Type: SourceExplicitSave}, Trust: TrustOperator, Confidence: 0.9}, Actor{Agent: AgentOperator})
		if err != nil {
			f.Fatal(err)
		}
		contents[m.ID] = append(contents[m.ID], m.Content)
		if i%2 == 0 {
			m, err = v.Update(m.ID, OpUpdate, Actor{Agent: AgentOperator}, func(m *Memory) error { m.Content += " v2"; return nil })
			if err != nil {
				f.Fatal(err)
			}
			contents[m.ID] = append(contents[m.ID], m.Content)
		}
		if i == 3 {
			if _, err := v.Archive(m.ID, "fuzz", "", Actor{Agent: AgentOperator}); err != nil {
				f.Fatal(err)
			}
		}
	}
	v.Close()
	pristine, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	ps := 4096
	f.Add(0, byte(0), 0)              // undamaged
	f.Add(40, byte(1), 0)             // meta page 0
	f.Add(ps+40, byte(1), 0)          // meta page 1
	f.Add(3*ps, byte(0x40), 0)        // a page header
	f.Add(0, byte(0), 5*ps)           // truncated
	f.Add(4*ps+100, byte(0x20), 6*ps) // a flip and a cut
	f.Fuzz(func(t *testing.T, off int, x byte, cut int) {
		d := slices.Clone(pristine)
		if off >= 0 && off < len(d) {
			d[off] ^= x
		}
		if cut > 0 && cut < len(d) {
			d = d[:cut]
		}
		p := filepath.Join(t.TempDir(), "vault.db")
		if err := os.WriteFile(p, d, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := OpenSalvage(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		_ = s.Unlock(ctx, pass)
		rep, items, err := s.recover(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(items) != rep.Total() {
			t.Fatalf("%d items, report says %d", len(items), rep.Total())
		}
		for _, it := range items {
			if !slices.Contains(contents[it.Memory.ID], it.Memory.Content) {
				t.Fatalf("recovered %s with content it never had", it.Memory.ID)
			}
			if err := checkItem(&it); err != nil {
				t.Fatalf("recovered item fails the import checks: %v", err)
			}
		}
	})
}
