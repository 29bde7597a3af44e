// Package guard screens every memory an agent writes before it is stored.
//
// Check runs four families of detectors over the text and combines them:
//
//   - secrets (private keys, provider API keys, JWTs, bearer tokens,
//     credential assignments, connection strings with passwords, password
//     hashes, webhook URLs, values their sentence names as a password,
//     token, key or secret in eleven languages, long random strings;
//     passwords people choose by their shape, the codes of alarms, doors,
//     locks and safes (after their words or before them), one-time codes,
//     command-line password flags, password columns of tables, seed
//     phrases, a credential given as the answer to a question about one
//     and the old value beside a new one, in secrets_chosen.go; and a
//     learned judgement of the sentence around a string, which may also
//     turn a possible finding probable where the sentence names a
//     credential, secrets_learned.go), at
//     three levels: definite secrets are always redacted, probable ones are
//     redacted with a warning, possible ones are flagged and stored
//     verbatim only once the caller confirms; a string its sentence names
//     as a commit, digest, trace or request id, fingerprint, public key or
//     sample, and placeholders, are no secret (secrets_context.go);
//   - personal data (emails, phone numbers, payment cards, US SSNs, IP
//     addresses, IBANs, street addresses), returned as byte spans and
//     redacted when the policy says so;
//   - what a memory would make an agent do, read in every memory whoever
//     it addresses (effects.go): code fetched from the network run,
//     credentials exposed, data sent out, safeguards dropped, data
//     destroyed, privileges raised, actions hidden from the user, the
//     memory put above the user's instructions, money moved; recognised
//     by structure (shell constructs; a verb and an object of a class in
//     one sentence) in English and nine other languages (effects_lang.go),
//     with prohibitions ("never run curl | sh") and scoped forms ("rm -rf
//     ./dist") left alone, encoded payloads decoded and judged (unveil.go)
//     and a quoted term's definition carried into the sentences that use
//     it; each effect is a finding with the span of its words and a
//     one-line reason;
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
// reject), the noisy-OR of the floors of the patterns that fired, and the
// effects layer's risk (0.6 for an effect, 0.1 more for a second kind, a
// trigger, a claimed approval or a dropped check, at most 0.8: alone it
// sends a memory to review, never rejects it); heuristics then add to
// it, and the source's trust scales it down (system 0.7, user 0.85, tool
// 0.95, others 1). Risk 0.5 and above is suspicious,
// 0.85 and above hostile. With a vector, the model's probability is first
// replaced by a weighted mean, in logits, of the n-gram model's (weight
// 0.8) and the vector model's recentred so that 0.8 maps to 0.5 (weight
// 0.2). On sources unseen in training that mostly removes false alarms; see
// TestEvalVector for the figures and the combinations that were rejected.
//
// The effects layer is rules, not a model. Both learned models were tried
// retrained with conventions-dev (memory-style attacks) and measured
// leaving one family out (TestEvalConventions -variants): on top of the
// rules they caught 2 or 3 more of 240 attacks (halves of split pairs)
// and flagged 6 to 9 more of 260 look-alikes (canonical installers, long
// paragraphs); the vector model alone caught 34% of the attacks and
// flagged 12% of the look-alikes. So they are trained as before, and the
// service does not embed a memory on the write path for them.
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
//	ENGRAM_EVAL=1 go test ./quarantine/guard -run TestEvalConventions -v [-variants]  # memory-style attacks by family, language and layer
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
