package vault

import (
	"strings"
	"testing"
)

// BenchmarkDecodePlain is the cost per read of the record check: decoding
// a plain record of 500 bytes of content alone, then with checkMemory.
func BenchmarkDecodePlain(b *testing.B) {
	m := Memory{ID: "84bd4e5c-3893-4011-a2ee-19508ba85ff8", Content: strings.Repeat("Deploys go through ops/deploy.sh. ", 15), Kind: Fact, Field: Learnings,
		Tier: Semantic, Partition: Internal, Source: Source{Type: SourceExplicitSave}, Owner: AgentOperator, Trust: TrustOperator, Confidence: 0.95, Version: 1}
	m.ContentHash = HashContent(m.Content)
	raw, err := encodeRecord(&m, nil, string(Internal), m.ID, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decode", func(b *testing.B) {
		for b.Loop() {
			var got Memory
			if _, err := decodeRecord(raw, nil, string(Internal), m.ID, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			if err := checkMemory(&m, string(Internal), m.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode+check", func(b *testing.B) {
		for b.Loop() {
			var got Memory
			if err := decodeMemory(raw, nil, string(Internal), m.ID, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestCheckMemory: a plain record whose text was altered is refused as
// damage, however it decodes.
func TestCheckMemory(t *testing.T) {
	m := Memory{ID: "id1", Content: "deploys run from the ops repo", Partition: Public}
	m.ContentHash = HashContent(m.Content)
	cases := []struct {
		name string
		edit func(m *Memory)
		ok   bool
	}{
		{"intact", func(*Memory) {}, true},
		{"one byte of the text", func(m *Memory) { m.Content = "deploys run from the opr repo" }, false},
		{"another id", func(m *Memory) { m.ID = "id2" }, false},
		{"another partition", func(m *Memory) { m.Partition = Internal }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := m
			tc.edit(&c)
			err := checkMemory(&c, "public", "id1")
			if (err == nil) != tc.ok {
				t.Errorf("checkMemory(%s) = %v, want ok %v", tc.name, err, tc.ok)
			}
		})
	}
}
