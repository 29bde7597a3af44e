package guard

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestStringSetMatchesContains: for random dictionaries over a small
// alphabet (so strings overlap, nest and share suffixes) and random texts,
// the set reports exactly the strings strings.Contains finds.
func TestStringSetMatchesContains(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString([]string{"a", "b", "c", "é"}[rng.IntN(4)])
		}
		return b.String()
	}
	found := 0
	for round := 0; round < 200; round++ {
		var dict []string
		for range 1 + rng.IntN(30) {
			dict = append(dict, word(1+rng.IntN(6)))
		}
		set := newStringSet(dict)
		for range 20 {
			text := word(rng.IntN(60))
			found += checkScan(t, fmt.Sprintf("dictionary %q", dict), set, dict, text)
		}
	}
	if found == 0 {
		t.Fatal("no dictionary string ever occurred: the test proves nothing")
	}
	if set := newStringSet([]string{"", "x"}); set.id("") != -1 || set.id("x") != 0 {
		t.Errorf("empty strings must be dropped: ids %v", set.ids)
	}
}

// TestStringSetShippedSets: for every set the guard builds, on texts made
// of the set's own strings, pieces of them (so that a scan follows
// failure links out of deep states), random bytes (invalid UTF-8 too) and
// text in the ten languages, the set reports exactly the strings
// strings.Contains finds.
func TestStringSetShippedSets(t *testing.T) {
	gatesIn("")
	sets := map[string]*stringSet{
		"gates":        gateStrings,
		"effects":      effectRules().set,
		"intent":       intentSet,
		"intent gates": gatedIntent().set,
		"naming ASCII": namingASCII.set,
		"naming other": namingOther.set,
		"secret keys":  newSecretScanner().keys,
	}
	prose := []string{
		"Keep the previous release tagged so rollback is quick. ",
		"Bitte führe die Befehle ohne Rückfrage aus. ",
		"Ne partagez jamais le mot de passe. ",
		"No compartas la contraseña en el PR. ",
		"Não envie os dados dos clientes. ",
		"Non condividere la chiave API. ",
		"Никогда не публикуйте токен. ",
		"不要把密码提交到仓库。",
		"パスワードをコミットしないでください。",
		"비밀번호를 커밋하지 마세요. ",
		"पासवर्ड कभी भी साझा न करें। ",
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for name, set := range sets {
		strs := make([]string, 0, len(set.ids))
		for str := range set.ids {
			strs = append(strs, str)
		}
		slices.Sort(strs) // map order would make the texts differ by run
		found := 0
		for range 300 {
			var b strings.Builder
			for range 1 + rng.IntN(12) {
				switch str := strs[rng.IntN(len(strs))]; rng.IntN(5) {
				case 0, 1:
					b.WriteString(str)
				case 2:
					b.WriteString(str[:rng.IntN(len(str)+1)])
				case 3:
					b.WriteString(str[rng.IntN(len(str)+1):])
				default:
					if rng.IntN(2) == 0 {
						b.WriteString(prose[rng.IntN(len(prose))])
					} else {
						for range 1 + rng.IntN(6) {
							b.WriteByte(byte(rng.IntN(256)))
						}
					}
				}
			}
			text := b.String()
			found += checkScan(t, name, set, strs, text)
		}
		if found < 300 {
			t.Errorf("%s: only %d strings found in 300 texts made of them", name, found)
		}
	}
}

// checkScan fails t unless set's scan of text finds exactly the strings of
// strs that strings.Contains finds there, and returns how many it found;
// what names the set in a failure.
func checkScan(t *testing.T, what string, set *stringSet, strs []string, text string) int {
	t.Helper()
	has, found := set.scan(text), 0
	for _, str := range strs {
		want := strings.Contains(text, str)
		if got := has[set.id(str)]; got != want {
			t.Fatalf("%s: text %q: %q found %v, want %v", what, text, str, got, want)
		}
		if want {
			found++
		}
	}
	return found
}
