// Package guard screens every memory an agent writes before it is stored.
//
// Check runs three families of detectors over the text and combines them:
//
//   - secrets (private keys, provider API keys, JWTs, bearer tokens,
//     credential assignments, connection strings with passwords, password
//     hashes, webhook URLs, values their sentence names as a password,
//     token, key or secret in eleven languages, long random strings), at
//     three levels: definite secrets are always redacted, probable ones are
//     redacted with a warning, possible ones are flagged and stored
//     verbatim only once the caller confirms; a string its sentence names
//     as a commit, digest, trace or request id, fingerprint, public key or
//     sample, and placeholders, are no secret (secrets_context.go);
//   - personal data (emails, phone numbers, payment cards, US SSNs, IP
//     addresses, IBANs, street addresses), returned as byte spans and
//     redacted when the policy says so;
//   - prompt injection and memory poisoning: a layer of patterns (directive
//     mimicry, role assumption, authority claims, payload splitting,
//     fabricated dialogue, persuasion, context switches, phishing lures),
//     decoders that recover text hidden in base64, hex, binary, Morse code,
//     a letter-shift cipher, pig Latin or invisible tag characters and run
//     the patterns on it, a layer
//     of heuristics (entropy, agent mentions, imperative density, field
//     size) and a small logistic model over hashed character and word
//     n-grams, trained offline on the labelled injection and poisoning
//     corpora with benign rules-file lines, memories and requests, and
//     embedded as data (model.bin). When the
//     caller passes the text's sentence embedding (Input.Vector, from the
//     embedder named by VectorModel), a second logistic model over that
//     vector (vecmodel.bin) joins the first.
//
// The result is a Verdict (safe, suspicious, hostile), a risk in [0, 1], the
// findings with their spans, and the text as it may be stored. The trust
// helpers (SourceTrust, Neutralise, CredentialLike, IsTranscript) encode the
// rules that depend on where a memory came from.
//
// Risk is the larger of the model's probability (recentred so that 0.6
// maps to 0.5, and capped at 0.8 so the model alone can quarantine but not
// reject) and the noisy-OR of the floors of the patterns that fired;
// heuristics then add to it, and the source's trust scales it down (system
// 0.7, user 0.85, tool 0.95, others 1). Risk 0.5 and above is suspicious,
// 0.85 and above hostile. With a vector, the model's probability is first
// replaced by a weighted mean, in logits, of the n-gram model's (weight
// 0.8) and the vector model's recentred so that 0.8 maps to 0.5 (weight
// 0.2). On sources unseen in training that mostly removes false alarms; see
// TestEvalVector for the figures and the combinations that were rejected.
//
// Speed: Go's regular expressions run in linear time but slowly when large.
// On the first screening (or at Prepare) each injection pattern is split
// into the alternatives it was written as, each behind the strings every
// match of it must contain, read from the parsed expression (gate.go);
// secret rules get the same gates. One Aho-Corasick pass (strset.go) tells
// which gate strings a text holds, compared in a canonical case-folded
// form so that a gate never stops an expression that would match. Check
// also has a cheaper sibling, Screen, which runs the injection screening
// alone.
//
// The secret rules are Engram's own, written from the providers' public
// token formats. gitleaks' rule set was measured as an alternative and as
// an addition (see the package's evaluation test) and not adopted: on the
// labelled corpus it added 3 of 430 positives and 4 of 143 false alarms, for
// some 70 extra modules and a three times larger binary.
//
// Reproducing the shipped model and the figures (corpus in ../shared/eval
// relative to the repository root, or ENGRAM_EVAL_DIR):
//
//	go test ./quarantine/guard -run TestTrain -train       # rewrites model.bin and vecmodel.bin
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEval -v
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestInjectionVariants -variants -v
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalVector -v   # n-gram vs vector vs combined
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalLearned -v  # the whole guard, leave one source out
//	go test ./quarantine/guard -run '^$' -bench .
//
// The vector model's trainer and evaluation embed the corpus with app/embed
// (test code only: the package itself imports nothing of the app layer) and
// need the USE Lite weights, in ../../.cache/model/use-lite or
// ENGRAM_MODEL_DIR; the vectors are cached in ../../.cache/guard-vectors.
//
// The package does no I/O and holds no mutable state after New, except the
// gated patterns built once, under a sync.Once, on first use: a Guard is
// safe for concurrent use.
package guard
