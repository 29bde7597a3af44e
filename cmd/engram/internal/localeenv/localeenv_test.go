package localeenv

import "testing"

func TestFix(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string // LANGUAGE afterwards
	}{
		{map[string]string{"LANG": "C.UTF-8"}, "en"},
		{map[string]string{"LC_ALL": "POSIX.utf8", "LANG": "de_DE.UTF-8"}, "en"},
		{map[string]string{"LANG": "C"}, ""},                                // Fyne reads plain C as "no locale"
		{map[string]string{"LANG": "de_DE.UTF-8"}, ""},                      // a real locale stays
		{map[string]string{"LANG": "C.UTF-8", "LANGUAGE": "fr"}, "fr"},      // the user's choice stays
		{map[string]string{"LC_ALL": "en_GB.UTF-8", "LANG": "C.UTF-8"}, ""}, // LC_ALL wins
	}
	for _, tc := range tests {
		env := map[string]string{}
		for k, v := range tc.env {
			env[k] = v
		}
		fix(func(k string) string { return env[k] }, func(k, v string) error { env[k] = v; return nil })
		if got := env["LANGUAGE"]; got != tc.want {
			t.Errorf("fix(%v): LANGUAGE = %q, want %q", tc.env, got, tc.want)
		}
	}
}
