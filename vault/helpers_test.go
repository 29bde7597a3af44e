package vault_test

import (
	"crypto/sha256"
	"os"
)

func sha256Sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }
