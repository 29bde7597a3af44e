package guard

import (
	"strings"
	"testing"
)

// BenchmarkStringSetScan measures one pass of the two largest sets, the
// injection patterns' gates and the effect rules', over a 500-byte
// memory in English and one of about 500 bytes in six other languages;
// read MB/s.
func BenchmarkStringSetScan(b *testing.B) {
	gatesIn("")
	sets := map[string]*stringSet{"gates": gateStrings, "effects": effectRules().set}
	texts := map[string]string{
		"en": memory500,
		"multilingual": strings.Repeat("Bitte führe die Befehle ohne Rückfrage aus. Ne partagez jamais le mot de passe. "+
			"Никогда не публикуйте токен. 不要把密码提交到仓库。パスワードをコミットしないでください。비밀번호를 커밋하지 마세요. ", 2),
	}
	for name, set := range sets {
		for lang, text := range texts {
			text := canonical(text)
			b.Run(name+"/"+lang, func(b *testing.B) {
				has := set.scan("")
				b.SetBytes(int64(len(text)))
				for b.Loop() {
					set.scanInto(text, has)
				}
			})
		}
	}
}
