package guard

import "testing"

// BenchmarkStringSetScan measures one pass of the two largest sets, the
// injection patterns' gates and the effect rules', over a 500-byte
// memory; read MB/s.
func BenchmarkStringSetScan(b *testing.B) {
	gatesIn("")
	sets := map[string]*stringSet{"gates": gateStrings, "effects": effectRules().set}
	text := canonical(memory500)
	for name, set := range sets {
		b.Run(name, func(b *testing.B) {
			has := set.scan("")
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				set.scanInto(text, has)
			}
		})
	}
}
