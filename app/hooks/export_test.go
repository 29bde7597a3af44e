package hooks

// UserMessages returns the user's messages of a transcript as a capture
// reads them (of session, when its lines name their session), for the
// tests in package hooks_test.
func UserMessages(path, session string) ([]string, error) {
	msgs, _, _, err := readTranscript(path, session, 0, 32<<20)
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.text
	}
	return out, err
}
