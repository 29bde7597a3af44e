package pagecheck

import (
	"bytes"
	"strings"
	"testing"
)

// keysOf counts the entries of r by bucket path, rooted or not.
func keysOf(r *ScanResult) (rooted, orphan map[string]int) {
	rooted, orphan = map[string]int{}, map[string]int{}
	for _, e := range r.Entries {
		if e.Free {
			continue
		}
		p := strings.Join(e.Path, "/")
		if e.Rooted {
			rooted[p]++
		} else {
			orphan[p]++
		}
	}
	return rooted, orphan
}

func TestScanSoundFile(t *testing.T) {
	r := Scan(sample(t))
	rooted, orphan := keysOf(r)
	if rooted["big"] != 601 || len(orphan) != 0 || r.OrphanPages != 0 {
		t.Errorf("Scan(sound) found %d keys in big, orphans %v (%d pages), want 601 and none", rooted["big"], orphan, r.OrphanPages)
	}
	for i := 0; i < 20; i++ {
		if p := "versions/" + string([]byte{byte(i)}); rooted[p] != 1 || !r.Complete("versions", string([]byte{byte(i)})) {
			t.Errorf("inline bucket %q: %d keys, complete %v; want 1, true", p, rooted[p], r.Complete(p))
		}
	}
	if len(r.Problems) != 0 || r.Meta < 0 || !r.Freelist {
		t.Errorf("Scan(sound) = problems %v, meta %d, freelist %v", r.Problems, r.Meta, r.Freelist)
	}
}

func TestScanDamage(t *testing.T) {
	data := sample(t)
	ps := 4096
	// The page holding key {0,0} of bucket "big" is one of its leaves; its
	// parent is a branch page.
	branch := -1
	for id := 2; (id+1)*ps <= len(data); id++ {
		if le.Uint64(data[id*ps:]) == uint64(id) && le.Uint16(data[id*ps+8:]) == flagBranch {
			branch = id
			break
		}
	}
	if branch < 0 {
		t.Fatal("sample has no branch page")
	}
	tests := []struct {
		name       string
		edit       func(d []byte) []byte
		wantRooted int // keys of big found from the tree
		wantTotal  int // keys of big found at all
	}{
		{"branch page mislabelled", func(d []byte) []byte { d[branch*ps] ^= 1; return d }, 0, 601},
		{"branch points at itself", func(d []byte) []byte { le.PutUint64(d[branch*ps+16+8:], uint64(branch)); return d }, -1, 601},
		{"both meta pages", func(d []byte) []byte { d[40] ^= 1; d[ps+40] ^= 1; return d }, 0, 601},
		// Meta page 1 holds the older transaction (the empty file): bbolt
		// would use meta page 0, and so does Scan.
		{"one meta page", func(d []byte) []byte { d[ps+40] ^= 1; return d }, 601, 601},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Scan(tc.edit(bytes.Clone(data)))
			total, rooted := 0, 0
			for _, e := range r.Entries {
				if len(e.Key) == 2 && len(e.Value) == 100 && !e.Free {
					total++
					if e.Rooted {
						rooted++
					}
				}
			}
			if e := r.Entries; len(e) > 0 && bytes.Equal(e[0].Key, []byte("large")) && len(e[0].Value) != 20000 {
				t.Errorf("the overflow value came back with %d bytes", len(e[0].Value))
			}
			if total != tc.wantTotal-1 || (tc.wantRooted >= 0 && rooted != max(tc.wantRooted-1, 0)) {
				t.Errorf("found %d small values of big (%d from the tree), want %d (%d)", total, rooted, tc.wantTotal-1, max(tc.wantRooted-1, 0))
			}
			if tc.name != "one meta page" && r.Complete("big") {
				t.Errorf("bucket big reported complete")
			}
			if len(r.Problems) == 0 {
				t.Errorf("no problem reported")
			}
		})
	}
}

// TestScanTruncated: whatever the cut, every value of the sound file that
// lies wholly before it (its page header too) is found again.
func TestScanTruncated(t *testing.T) {
	data := sample(t)
	full := Scan(data)
	for _, cut := range []int{0, 100, 4096, 8192 + 17, len(data) / 3, len(data) / 2, len(data) - 4096, len(data) - 1} {
		r := Scan(data[:cut])
		found := map[string]bool{}
		for _, e := range r.Entries {
			found[strings.Join(e.Path, "/")+"|"+string(e.Key)] = true
			found["|"+string(e.Key)] = true
		}
		want, lost := 0, 0
		for _, e := range full.Entries {
			at := offset(data, e.Value)
			if at < 0 || at+len(e.Value) > cut || (at/4096+1)*4096 > cut && len(e.Value) <= 4096 {
				continue
			}
			want++
			if !found[strings.Join(e.Path, "/")+"|"+string(e.Key)] && !found["|"+string(e.Key)] {
				lost++
			}
		}
		if lost > 0 {
			t.Errorf("cut %d: %d of %d values before the cut were not found", cut, lost, want)
		}
		if cut >= 2*4096 && r.Meta < 0 {
			t.Errorf("cut %d: the meta pages were lost", cut)
		}
	}
}

// FuzzScan: whatever the damage, Scan returns (no panic, no hang), and
// every entry lies inside the scanned bytes.
func FuzzScan(f *testing.F) {
	data := sample(f)
	f.Add(100, byte(1), 8192)
	f.Add(9000, byte(0x80), 0)
	f.Add(4096*3+20, byte(0x02), len(data)/2)
	f.Add(40, byte(1), 0)
	f.Fuzz(func(t *testing.T, off int, x byte, cut int) {
		d := bytes.Clone(data)
		if off >= 0 && off < len(d) {
			d[off] ^= x
		}
		if cut > 0 && cut < len(d) {
			d = d[:cut]
		}
		r := Scan(d)
		for _, e := range r.Entries {
			if !inside(d, e.Key) || !inside(d, e.Value) {
				t.Fatalf("entry outside the scanned bytes")
			}
		}
	})
}

// offset is where b starts inside d, or -1.
func offset(d, b []byte) int {
	if len(b) == 0 {
		return -1
	}
	for i := range d {
		if &d[i] == &b[0] {
			return i
		}
	}
	return -1
}

// inside reports whether b is a sub-slice of d (or empty).
func inside(d, b []byte) bool {
	if len(b) == 0 {
		return true
	}
	for i := range d {
		if &d[i] == &b[0] {
			return i+len(b) <= len(d)
		}
	}
	return false
}
