package recall

import (
	"slices"
	"testing"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
	}{
		{"stopwords and stems", "The runners are running to the station", []string{"runner", "run", "station"}},
		{"punctuation and case", "Deploys go through ops/deploy.sh!", []string{"deploi", "go", "through", "op", "deploi", "sh"}},
		{"digits", "Python 3.13 removes distutils", []string{"python", "3", "13", "remov", "distutil"}},
		{"diacritics folded", "Café CAFÉ naïve", []string{"cafe", "cafe", "naiv"}},
		{"non-latin letters kept", "Привет мир", []string{"привет", "мир"}},
		{"han one term per character", "東京タワー tower", []string{"東", "京", "タ", "ワ", "ー", "tower"}},
		{"apostrophes split", "Alice's phone", []string{"alic", "phone"}},
		{"hyphenated words also joined", "IL-6 and e‐mail re-run x-y-z p - q in-vivo", []string{"il", "6", "il6", "e", "mail", "email", "run", "rerun", "x", "y", "xy", "z", "yz", "p", "q", "vivo", "invivo"}},
		{"empty", " \t\n", nil},
		{"invalid utf-8", "ab\xffcd", []string{"ab", "cd"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Terms(nil, tc.in); !slices.Equal(got, tc.want) {
				t.Errorf("Terms(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
