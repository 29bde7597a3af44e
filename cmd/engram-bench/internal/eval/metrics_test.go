package eval

import (
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMetrics(t *testing.T) {
	rel := map[string]int{"a": 1, "b": 1}
	tests := []struct {
		name               string
		ranked             []string
		ndcg10, r10, mrr10 float64
	}{
		{"perfect", []string{"a", "b", "c"}, 1, 1, 1},
		{"second and third", []string{"x", "a", "b"}, (1/math.Log2(3) + 1/math.Log2(4)) / (1 + 1/math.Log2(3)), 1, 0.5},
		{"one found", []string{"x", "y", "b"}, (1 / math.Log2(4)) / (1 + 1/math.Log2(3)), 0.5, 1.0 / 3},
		{"none", []string{"x"}, 0, 0, 0},
		{"empty", nil, 0, 0, 0},
	}
	for _, tc := range tests {
		got := [3]float64{ndcg(tc.ranked, rel, 10), recallAt(tc.ranked, rel, 10), mrr(tc.ranked, rel, 10)}
		want := [3]float64{tc.ndcg10, tc.r10, tc.mrr10}
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Errorf("%s: [nDCG R MRR] = %v, want %v", tc.name, got, want)
				break
			}
		}
	}
	ds := []time.Duration{5, 1, 4, 2, 3}
	if p50, p99 := percentile(ds, 50), percentile(ds, 99); p50 != 3 || p99 != 5 {
		t.Errorf("percentile(50, 99) = %v, %v; want 3, 5", p50, p99)
	}
}

func TestReadQrels(t *testing.T) {
	path := filepath.Join(t.TempDir(), "q.tsv")
	if err := os.WriteFile(path, []byte("query-id\tcorpus-id\tscore\n1\t10\t1\n1\t11\t2\n2\t10\t1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	q, err := readQrels(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(q) != 2 || q["1"]["11"] != 2 || q["2"]["10"] != 1 {
		t.Fatalf("readQrels = %v", q)
	}
}
