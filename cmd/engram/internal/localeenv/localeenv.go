// Package localeenv names English as the language when the locale is C or
// POSIX with an encoding ("C.UTF-8", Debian's default in containers and
// minimal installs). Fyne's locale lookup reads "C.UTF-8" as a language
// tag, fails, and logs three lines of "Fyne error" on every engram
// command. Setting LANGUAGE=en (which gettext ignores under the C locale)
// gives it a tag it can read.
//
// It works from its init, which must run before Fyne's: cmd/engram
// imports it for that side effect. Go initialises packages in import-path
// order among those whose imports are ready, and this package imports only
// what the locale library Fyne uses imports, under a path that sorts
// before it, so it always runs first.
package localeenv

import (
	"os"
	"strings"
)

func init() { fix(os.Getenv, os.Setenv) }

// fix sets LANGUAGE to "en" when the effective locale is C or POSIX with
// an encoding or modifier, and LANGUAGE is unset.
func fix(getenv func(string) string, setenv func(string, string) error) {
	if getenv("LANGUAGE") != "" {
		return
	}
	var loc string
	for _, env := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if loc = getenv(env); loc != "" {
			break
		}
	}
	base, _, _ := strings.Cut(loc, ".")
	base, _, _ = strings.Cut(base, "@")
	if (base == "C" || base == "POSIX") && loc != base {
		_ = setenv("LANGUAGE", "en")
	}
}
