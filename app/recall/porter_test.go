package recall

import "testing"

func TestStem(t *testing.T) {
	// Examples from Porter's paper, one or more per rule, and edge cases.
	tests := []struct{ in, want string }{
		{"caresses", "caress"}, {"ponies", "poni"}, {"ties", "ti"}, {"caress", "caress"}, {"cats", "cat"},
		{"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"}, {"bled", "bled"}, {"motoring", "motor"}, {"sing", "sing"},
		{"conflated", "conflat"}, {"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"}, {"tanned", "tan"},
		{"falling", "fall"}, {"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"}, {"filing", "file"},
		{"happy", "happi"}, {"sky", "sky"},
		{"relational", "relat"}, {"conditional", "condit"}, {"rational", "ration"}, {"valenci", "valenc"}, {"hesitanci", "hesit"},
		{"digitizer", "digit"}, {"conformabli", "conform"}, {"radicalli", "radic"}, {"differentli", "differ"}, {"vileli", "vile"},
		{"analogousli", "analog"}, {"vietnamization", "vietnam"}, {"predication", "predic"}, {"operator", "oper"},
		{"feudalism", "feudal"}, {"decisiveness", "decis"}, {"hopefulness", "hope"}, {"callousness", "callous"},
		{"formaliti", "formal"}, {"sensitiviti", "sensit"}, {"sensibiliti", "sensibl"},
		{"triplicate", "triplic"}, {"formative", "form"}, {"formalize", "formal"}, {"electriciti", "electr"},
		{"electrical", "electr"}, {"hopeful", "hope"}, {"goodness", "good"},
		{"revival", "reviv"}, {"allowance", "allow"}, {"inference", "infer"}, {"airliner", "airlin"}, {"gyroscopic", "gyroscop"},
		{"adjustable", "adjust"}, {"defensible", "defens"}, {"irritant", "irrit"}, {"replacement", "replac"}, {"adjustment", "adjust"},
		{"dependent", "depend"}, {"adoption", "adopt"}, {"homologou", "homolog"}, {"communism", "commun"}, {"activate", "activ"},
		{"angulariti", "angular"}, {"homologous", "homolog"}, {"effective", "effect"}, {"bowdlerize", "bowdler"},
		{"probate", "probat"}, {"rate", "rate"}, {"cease", "ceas"}, {"controll", "control"}, {"roll", "roll"},
		{"generalizations", "gener"}, {"oscillators", "oscil"}, {"archaeology", "archaeolog"},
		{"a", "a"}, {"is", "is"}, {"café", "café"}, {"mp3s", "mp3s"}, {"", ""},
	}
	for _, tc := range tests {
		if got := Stem(tc.in); got != tc.want {
			t.Errorf("Stem(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzStem(f *testing.F) {
	for _, s := range []string{"generalizations", "y", "yyy", "sses", "eed", "ied"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Stem(s)
		if len(got) > len(s)+1 { // step 1b may add an e
			t.Fatalf("Stem(%q) = %q grew", s, got)
		}
	})
}
