// Package strictjson decodes JSON from agents strictly. encoding/json
// lets through what an attacker can use to make two readers of one
// request disagree, or to smuggle bytes past the guard: it replaces
// invalid UTF-8 and unpaired UTF-16 surrogate escapes with U+FFFD, keeps
// NUL characters, keeps the last of two values of one key (matching
// struct fields without regard to case), and ignores data after the
// value. Decode refuses each of them with an error that names the problem
// and where it is.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The problems Decode refuses, besides encoding/json's own errors
// (*json.SyntaxError, *json.UnmarshalTypeError, unknown fields).
var (
	ErrEmpty        = errors.New("empty")
	ErrNotUTF8      = errors.New("not valid UTF-8")
	ErrTrailing     = errors.New("trailing data after the JSON value")
	ErrDuplicateKey = errors.New("duplicate key")
	ErrNUL          = errors.New("NUL character")
	ErrSurrogate    = errors.New("unpaired UTF-16 surrogate")
)

// KeyError is a problem found at a place in the value: ErrDuplicateKey,
// ErrNUL or ErrSurrogate. Path names the place from the top object, as
// "content", "source.tool" or "tags[2]"; a duplicate key is named as
// its second occurrence spells it.
type KeyError struct {
	Err  error
	Path string
}

func (e *KeyError) Error() string {
	if e.Err == ErrDuplicateKey {
		return fmt.Sprintf("%v %q", e.Err, e.Path)
	}
	if e.Path == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("%v in %q", e.Err, e.Path)
}

func (e *KeyError) Unwrap() error { return e.Err }

// Decode decodes data, which must hold exactly one JSON value, into v as
// encoding/json does with unknown fields refused, then refuses invalid
// UTF-8 (ErrNotUTF8, checked first), data after the value (ErrTrailing),
// and, anywhere in the value, a key given twice in one object (compared
// without regard to case, as encoding/json matches struct fields), a NUL
// character in a key or a string, and an unpaired surrogate escape (a
// *KeyError). Only space around the value counts as empty (ErrEmpty).
func Decode(data []byte, v any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return ErrEmpty
	}
	if !utf8.Valid(data) {
		return ErrNotUTF8
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ErrTrailing
	}
	return check(data)
}

// check walks the tokens of data, one valid JSON value.
func check(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // a number is not looked at; it must not fail as a float64
	return walk(dec, data, "")
}

func walk(dec *json.Decoder, data []byte, path string) error {
	start := dec.InputOffset()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case string:
		return checkString(t, data[start:dec.InputOffset()], path)
	case json.Delim:
		if t == '[' {
			for i := 0; dec.More(); i++ {
				if err := walk(dec, data, path+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		} else {
			seen := map[string]bool{}
			for dec.More() {
				start := dec.InputOffset()
				tok, err := dec.Token()
				if err != nil {
					return err
				}
				key := tok.(string)
				kp := key
				if path != "" {
					kp = path + "." + key
				}
				if err := checkString(key, data[start:dec.InputOffset()], kp); err != nil {
					return err
				}
				folded := fold(key)
				if seen[folded] {
					return &KeyError{ErrDuplicateKey, kp}
				}
				seen[folded] = true
				if err := walk(dec, data, kp); err != nil {
					return err
				}
			}
		}
		_, err := dec.Token() // the closing ] or }
		return err
	}
	return nil
}

// fold maps keys that encoding/json would match to the same struct field
// to one string.
func fold(key string) string { return strings.ToLower(strings.ToUpper(key)) }

// checkString refuses a NUL in s, a decoded string, and an unpaired
// surrogate escape in raw, its source (with the delimiters before it).
// encoding/json decodes an unpaired surrogate to U+FFFD, so only strings
// holding one are scanned.
func checkString(s string, raw []byte, path string) error {
	if strings.IndexByte(s, 0) >= 0 {
		return &KeyError{ErrNUL, path}
	}
	if strings.ContainsRune(s, utf8.RuneError) && unpairedSurrogate(raw) {
		return &KeyError{ErrSurrogate, path}
	}
	return nil
}

// unpairedSurrogate reports whether the first JSON string in raw holds a
// \uD800-\uDBFF escape not followed by a \uDC00-\uDFFF one, or the
// latter alone.
func unpairedSurrogate(raw []byte) bool {
	i := bytes.IndexByte(raw, '"')
	if i < 0 {
		return false
	}
	s := raw[i+1:]
	for i := 0; i < len(s) && s[i] != '"'; i++ {
		if s[i] != '\\' {
			continue
		}
		i++
		if i >= len(s) || s[i] != 'u' {
			continue // \" \\ \n and the others: one character
		}
		r, ok := hex4(s[i+1:])
		if !ok {
			return false // not valid JSON; the decoder said so already
		}
		i += 4
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		case r >= 0xD800 && r <= 0xDBFF:
			if len(s) < i+7 || s[i+1] != '\\' || s[i+2] != 'u' {
				return true
			}
			lo, ok := hex4(s[i+3:])
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 6
		}
	}
	return false
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[:4]), 16, 16)
	return rune(n), err == nil
}
