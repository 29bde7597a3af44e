package policy

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
	"unicode"
)

// Memories hold text, never media: the design's invariants forbid images,
// audio and binary content in memory. A link to an image is text and
// stays; the image itself, inline as a data: URI or a base64 blob, or
// bytes that are not text, are refused with the reason (see mediaIn).

// dataURI matches a data: URI: "data:" and a media type, then its
// parameters or data ("data:image/png;base64,..."). Prose such as
// "data: the nightly export" has no media type and does not match.
var dataURI = regexp.MustCompile(`(?i)\bdata:[a-z]+/[a-z0-9.+-]+[;,]`)

// base64Run matches a run of standard or URL-safe base64 long enough to
// hold a media header (48 characters decode to 36 bytes).
var base64Run = regexp.MustCompile(`[A-Za-z0-9+/_-]{48,}={0,2}`)

// mediaMagic are the leading bytes of image and audio formats, with the
// format's name; an entry with at 4 starts at byte 4 (ISO media, "ftyp").
// Signatures shorter than three bytes (BMP's "BM", bare MP3 frames) are
// left out: a path or a token would match them by chance.
var mediaMagic = []struct {
	name  string
	at    int
	magic []byte
}{
	{"PNG image", 0, []byte("\x89PNG\r\n\x1a\n")},
	{"JPEG image", 0, []byte{0xFF, 0xD8, 0xFF}},
	{"GIF image", 0, []byte("GIF8")},
	{"WebP image or WAV audio", 0, []byte("RIFF")},
	{"TIFF image", 0, []byte("II*\x00")},
	{"TIFF image", 0, []byte("MM\x00*")},
	{"icon", 0, []byte{0, 0, 1, 0}},
	{"MP3 audio", 0, []byte("ID3")},
	{"Ogg audio", 0, []byte("OggS")},
	{"FLAC audio", 0, []byte("fLaC")},
	{"MIDI audio", 0, []byte("MThd")},
	{"MP4, M4A or HEIC media", 4, []byte("ftyp")},
}

// mediaIn says why text holds media, or "" when it holds none: a data:
// URI, a base64 run that decodes to an image or audio header, or binary
// content (control characters or replacement characters, at least 8 and
// at least 2% of the characters; tabs and line breaks are text).
func mediaIn(text string) string {
	if loc := dataURI.FindStringIndex(text); loc != nil {
		return "a data: URI (" + strings.TrimSuffix(strings.TrimSuffix(text[loc[0]:loc[1]], ";"), ",") + "): memories hold text, not media; link to the file instead"
	}
	for _, run := range base64Run.FindAllString(text, -1) {
		if name := base64Media(run); name != "" {
			return "a base64-encoded " + name + ": memories hold text, not media; link to the file instead"
		}
	}
	odd, n := 0, 0
	for _, r := range text {
		n++
		if r == unicode.ReplacementChar || (unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r') {
			odd++
		}
	}
	if odd >= 8 && odd*50 >= n {
		return "binary content (control characters): memories hold text, not media or files"
	}
	return ""
}

// base64Media names the media format run's first bytes decode to, or "".
func base64Media(run string) string {
	head := strings.TrimRight(run, "=")
	head = head[:len(head)/4*4][:min(len(head)/4*4, 48)]
	var b []byte
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if d, err := enc.DecodeString(head); err == nil {
			b = d
			break
		}
	}
	for _, m := range mediaMagic {
		if len(b) >= m.at+len(m.magic) && bytes.Equal(b[m.at:m.at+len(m.magic)], m.magic) {
			return m.name
		}
	}
	return ""
}
