package ui

import (
	"github.com/trustelem/zxcvbn"
)

// strength is zxcvbn's estimate of a passphrase: a score from 0 (guessed
// at once) to 4 (out of reach), and what to tell the user.
type strength struct {
	Score int
	Label string
}

// minScore is the score below which creating a vault or changing the
// passphrase needs an explicit "use it anyway". zxcvbn's 3 means about
// 10^10 guesses; the vault's Argon2id makes each guess cost a fraction of
// a second, so that is years of one machine's work.
const minScore = 3

// maxEstimated bounds the text zxcvbn looks at: its matching is
// quadratic in the length, and beyond this any passphrase is long
// enough.
const maxEstimated = 64

var strengthLabels = [...]string{
	"Very weak: guessed almost at once. Use four or more random words.",
	"Weak: guessed within hours. Use four or more random words.",
	"Fair: a determined attacker could guess it. Add a word or two.",
	"Good.",
	"Strong.",
}

// estimate returns the strength of p; inputs are words a guesser would
// try first (the user's name, "engram").
func estimate(p string, inputs ...string) strength {
	if p == "" {
		return strength{}
	}
	if r := []rune(p); len(r) > maxEstimated {
		p = string(r[:maxEstimated])
	}
	s := zxcvbn.PasswordStrength(p, append(inputs, "engram", "vault", "memory", "passphrase")).Score
	s = min(max(s, 0), 4)
	return strength{Score: s, Label: strengthLabels[s]}
}
