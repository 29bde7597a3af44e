package guard

import (
	"crypto/sha256"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Finding kinds.
const (
	KindSecret    = "secret"
	KindPII       = "pii"
	KindInjection = "injection"
)

// Verdict is the guard's overall judgement of a memory.
type Verdict string

const (
	// Safe memories may be stored as they are (after redaction).
	Safe Verdict = "safe"
	// Suspicious memories should go to the quarantine queue for review.
	Suspicious Verdict = "suspicious"
	// Hostile memories should be rejected.
	Hostile Verdict = "hostile"
)

// Risk thresholds for the verdict. They sit on the injection model's
// calibrated probability, nudged by the pattern and heuristic layers.
const (
	suspiciousAt = 0.5
	hostileAt    = 0.85
)

// PIIMode says what the guard does with personal data.
type PIIMode string

const (
	// PIIEncrypt keeps personal data in the stored text; the caller stores
	// the memory in the sensitive partition, which is encrypted.
	PIIEncrypt PIIMode = "encrypt"
	// PIIRedact replaces personal data with type markers.
	PIIRedact PIIMode = "redact"
)

// DefaultFieldLimits returns the maximum sizes, in characters, of the
// memory fields Engram knows, as a new map. Longer values are a poisoning
// signal: a "preference" does not need two pages.
func DefaultFieldLimits() map[string]int {
	return map[string]int{
		"learnings":   500,
		"preferences": 200,
		"gotchas":     300,
		"conventions": 400,
		"decisions":   500,
	}
}

// Policy configures a Guard.
type Policy struct {
	// FailOnSecret makes Check set Result.Rejected when a definite or
	// probable secret is found, instead of storing the redacted text.
	FailOnSecret bool
	// PII selects what happens to personal data; empty means PIIEncrypt.
	PII PIIMode
	// FieldLimits maps a field name to its maximum size in characters; nil
	// means DefaultFieldLimits(). Fields not in the map have no limit.
	FieldLimits map[string]int
}

// Input is one memory write.
type Input struct {
	Text   string
	Source string // see SourceTrust
	Field  string // e.g. "learnings"; selects the size limit
	// Confirmed is set when the caller has confirmed that possible secrets
	// (long random strings, hashes) may be stored verbatim.
	Confirmed bool
	// Vector is the text's sentence embedding, if the caller has one
	// (Engram embeds every memory for recall anyway), and VectorModel the
	// name of the embedder that produced it (embed.Embedder.Name). When
	// VectorModel equals the package's VectorModel and the vector has that
	// model's length, a second injection model reads it: its judgement of
	// what the text means generalises to phrasings the n-gram model has
	// never seen. Otherwise the vector is ignored and Check behaves as if
	// it were absent. The guard does not keep or modify the slice.
	Vector      []float32
	VectorModel string
}

// Finding is one detection. Start and End are byte offsets into Input.Text,
// with Start <= End <= len(Input.Text); for injection findings that concern
// the whole text they are 0 and len(Text).
type Finding struct {
	Kind   string // KindSecret, KindPII or KindInjection
	Type   string // e.g. "api_key", "EMAIL_ADDRESS", "role_assumption"
	Level  string // secrets: definite, probable or possible; others empty
	Start  int
	End    int
	Reason string
}

// Result is the outcome of Check.
type Result struct {
	Verdict  Verdict
	Risk     float64 // injection/poisoning risk in [0, 1]
	Threat   int     // Risk on a 0..10 scale
	Findings []Finding
	// Redacted is the text as it may be stored: definite and probable
	// secrets replaced by markers, and personal data too when the policy
	// says PIIRedact. Possible secrets are left in place. For low-trust
	// sources, injection markers are also neutralised (see Neutralise).
	// Finding spans refer to Input.Text, not to Redacted.
	Redacted    string
	ContentHash [32]byte // SHA-256 of the original Input.Text
	HasPII      bool
	HasSecret   bool // a definite or probable secret was found
	// NeedsConfirm is set when possible secrets were found and the input
	// was not confirmed: the caller must ask before storing.
	NeedsConfirm bool
	// Rejected is set when the policy fails on secrets and one was found.
	Rejected bool
	// CredentialLike is set for statements such as "the password is ...":
	// the caller must not keep them as semantic memory.
	CredentialLike bool
	// Transcript is set for raw chat logs, transcripts and token counts:
	// the caller keeps them as episodic memory only.
	Transcript bool
	Trust      Trust
	Reasons    []string
	// VectorUsed is set when Input.Vector contributed to Risk.
	VectorUsed bool
}

// Guard checks memories against a policy. It is immutable after New and safe
// for concurrent use.
type Guard struct {
	policy  Policy
	limits  map[string]int
	secrets *secretScanner
	model   *model
	vec     *vecModel
	mix     mixRule
	// secretModel is the learned judgement of secrets (secrets_learned.go);
	// nil reads with the rules alone.
	secretModel *tokModel
}

// New returns a Guard for p. It fails with ErrBadPolicy for an unknown PII
// mode or a negative field limit, and with ErrBadModel if an embedded
// model (injection, vector, secrets) is corrupt.
func New(p Policy) (*Guard, error) {
	switch p.PII {
	case "":
		p.PII = PIIEncrypt
	case PIIEncrypt, PIIRedact:
	default:
		return nil, fmt.Errorf("new guard: pii mode %q: %w", p.PII, ErrBadPolicy)
	}
	limits := p.FieldLimits
	if limits == nil {
		limits = DefaultFieldLimits()
	}
	copied := make(map[string]int, len(limits))
	for k, v := range limits {
		if v < 0 {
			return nil, fmt.Errorf("new guard: field %q limit %d: %w", k, v, ErrBadPolicy)
		}
		copied[k] = v
	}
	m, err := loadModel()
	if err != nil {
		return nil, fmt.Errorf("new guard: %w", err)
	}
	vm, err := loadVecModel()
	if err != nil {
		return nil, fmt.Errorf("new guard: %w", err)
	}
	sm, err := loadSecretModel()
	if err != nil {
		return nil, fmt.Errorf("new guard: %w", err)
	}
	return &Guard{policy: p, limits: copied, secrets: newSecretScanner(), model: m, vec: vm, mix: shippedMix, secretModel: sm}, nil
}

// FieldLimit is the size limit of field, in characters, under the
// guard's policy (0: none). The service enforces it; Check scores text
// beyond it as a poisoning signal.
func (g *Guard) FieldLimit(field string) int { return g.limits[field] }

// Check screens one memory. It never fails: unusual input (invalid UTF-8,
// huge text) is screened as well as it can be.
func (g *Guard) Check(in Input) Result {
	text := in.Text
	res := Result{ContentHash: sha256.Sum256([]byte(text)), Trust: SourceTrust(in.Source)}

	secrets := g.scanSecrets(text)
	pii := scanPII(text)
	// Personal data inside a secret is the secret's business.
	pii = dropCovered(pii, secrets)

	for _, f := range secrets {
		switch f.Level {
		case LevelDefinite, LevelProbable:
			res.HasSecret = true
		case LevelPossible:
			if !in.Confirmed {
				res.NeedsConfirm = true
			}
		}
	}
	res.HasPII = len(pii) > 0
	if res.HasSecret {
		res.Reasons = append(res.Reasons, "secret redacted")
		if g.policy.FailOnSecret {
			res.Rejected = true
			res.Reasons = append(res.Reasons, "policy rejects memories containing secrets")
		}
	}
	if res.NeedsConfirm {
		res.Reasons = append(res.Reasons, "possible secret needs confirmation")
	}

	inj := g.screenInput(in, &res)
	res.Reasons = append(res.Reasons, inj.reasons...)
	res.CredentialLike = CredentialLike(text)
	if res.CredentialLike {
		res.Reasons = append(res.Reasons, "credential-like statement")
	}
	res.Transcript = IsTranscript(text)
	if res.Transcript {
		res.Reasons = append(res.Reasons, "raw transcript or log")
	}

	res.Findings = append(res.Findings, secrets...)
	res.Findings = append(res.Findings, pii...)
	res.Findings = append(res.Findings, inj.findings...)

	redact := make([]Finding, 0, len(secrets)+len(pii))
	for _, f := range secrets {
		if f.Level != LevelPossible {
			redact = append(redact, f)
		}
	}
	if g.policy.PII == PIIRedact {
		redact = append(redact, pii...)
	}
	res.Redacted = applyRedactions(text, redact)
	if res.Trust <= TrustLow {
		if n := Neutralise(res.Redacted, res.Trust); n != res.Redacted {
			res.Redacted = n
			res.Reasons = append(res.Reasons, "injection markers neutralised")
		}
	}
	return res
}

// Data reports whether text holds a definite or probable secret, or
// personal data, as Check would find them, without the injection
// screening: for short identifiers that are stored as they are and must
// hold neither (a session id, a message id).
func (g *Guard) Data(text string) (secret, personal bool) {
	secrets := g.scanSecrets(text)
	for _, f := range secrets {
		if f.Level == LevelDefinite || f.Level == LevelProbable {
			secret = true
		}
	}
	return secret, len(dropCovered(scanPII(text), secrets)) > 0
}

// Secrets returns the definite and probable secrets Check would redact in
// text, without the rest of the screening: for a caller that joins two
// texts and needs to know whether the join holds a secret neither held.
func (g *Guard) Secrets(text string) []Finding {
	var out []Finding
	for _, f := range g.scanSecrets(text) {
		if f.Level == LevelDefinite || f.Level == LevelProbable {
			out = append(out, f)
		}
	}
	return out
}

// Redact replaces each finding's span of text with its redaction marker, as
// Check does for the secrets it redacts. Spans must lie inside text.
func Redact(text string, fs []Finding) string {
	return applyRedactions(text, slices.Clone(fs))
}

// Screen runs only the injection and poisoning screening of Check: Risk,
// Threat, Verdict, Trust, VectorUsed, the injection reasons and findings
// are set as Check sets them, nothing is redacted and no secret or PII
// scan runs. It costs a fraction of Check and serves callers that need
// only the verdict of a text that is never stored as such, like two
// writes read together.
func (g *Guard) Screen(in Input) Result {
	res := Result{Trust: SourceTrust(in.Source)}
	inj := g.screenInput(in, &res)
	res.Reasons = inj.reasons
	res.Findings = inj.findings
	return res
}

// screenInput screens in.Text and sets res's risk, threat and verdict.
func (g *Guard) screenInput(in Input, res *Result) screening {
	vecP := -1.0
	if usableVector(in) {
		vecP = g.vec.predict(in.Vector)
		res.VectorUsed = true
	}
	inj := g.screen(in.Text, in.Field, vecP)
	// The text as a model reads it, disguises undone (normalize.go): the
	// higher risk of the two counts, and each disguise is a finding.
	if norm, found := normaliseText(in.Text); len(found) > 0 || norm != in.Text {
		n := g.screen(norm, in.Field, vecP)
		raised := n.risk > inj.risk
		if raised {
			inj.risk = n.risk
			for _, r := range n.reasons {
				if !slices.Contains(inj.reasons, r) {
					inj.reasons = append(inj.reasons, r)
				}
			}
			// Their offsets point into the normalised text: they concern
			// the whole text as given.
			for _, f := range n.findings {
				f.Start, f.End = 0, len(in.Text)
				inj.findings = append(inj.findings, f)
			}
		}
		for _, d := range found {
			if d.floor == 0 && !raised {
				continue // look-alike letters in "TNFα", a comment: only a disguise if it hid something
			}
			// A disguise found after another was undone may sit at an
			// offset of the partly normalised text: keep it inside.
			start, end := min(d.start, len(in.Text)), min(d.end, len(in.Text))
			inj.findings = append(inj.findings, Finding{Kind: KindInjection, Type: d.typ, Start: start, End: end, Reason: d.reason})
			inj.reasons = append(inj.reasons, d.reason)
			inj.risk = max(inj.risk, d.floor)
		}
	}
	res.Risk = inj.risk * trustDiscount(res.Trust)
	res.Threat = int(math.Round(res.Risk * 10))
	res.Verdict = verdictFor(res.Risk)
	return inj
}

// trustDiscount scales the injection risk by the source's trust. The
// detectors cannot tell a user's own instruction-like preference ("answer
// in French in your replies") from a planted one; who wrote it can. The
// discount never turns a hostile-looking text from a trusted source into a
// safe one on its own: a chat-template token (floor 0.9) from the user is
// still suspicious.
func trustDiscount(t Trust) float64 {
	switch t {
	case TrustHighest:
		return 0.7
	case TrustHigh:
		return 0.85
	case TrustMedium:
		return 0.95
	}
	return 1
}

func verdictFor(risk float64) Verdict {
	switch {
	case risk >= hostileAt:
		return Hostile
	case risk >= suspiciousAt:
		return Suspicious
	}
	return Safe
}

// marker returns the replacement text for a finding.
func marker(f Finding) string {
	if f.Kind == KindPII {
		return piiMarker(f.Type)
	}
	return secretMarker(f.Type)
}

// applyRedactions replaces the spans of fs in text with their markers.
// Overlapping spans are merged; the merged span takes the marker of its
// strongest finding (definite over probable, secret over PII).
func applyRedactions(text string, fs []Finding) string {
	if len(fs) == 0 {
		return text
	}
	sort.Slice(fs, func(i, j int) bool {
		if fs[i].Start != fs[j].Start {
			return fs[i].Start < fs[j].Start
		}
		return fs[i].End > fs[j].End
	})
	var b strings.Builder
	b.Grow(len(text))
	pos := 0
	for i := 0; i < len(fs); {
		start, end, best := fs[i].Start, fs[i].End, fs[i]
		j := i + 1
		for ; j < len(fs) && fs[j].Start < end; j++ {
			if fs[j].End > end {
				end = fs[j].End
			}
			if strength(fs[j]) > strength(best) {
				best = fs[j]
			}
		}
		if start < pos {
			start = pos
		}
		b.WriteString(text[pos:start])
		b.WriteString(marker(best))
		pos = end
		i = j
	}
	b.WriteString(text[pos:])
	return b.String()
}

func strength(f Finding) int {
	s := 0
	if f.Kind == KindSecret {
		s = 10
	}
	switch f.Level {
	case LevelDefinite:
		s += 3
	case LevelProbable:
		s += 2
	}
	return s*1000 + (f.End - f.Start)
}

// dropCovered removes PII findings that overlap a definite or probable
// secret. Both slices are sorted by start.
func dropCovered(pii, secrets []Finding) []Finding {
	out := pii[:0]
	for _, p := range pii {
		// Secrets starting before p ends; look back over the last few,
		// which is where an overlapping one must be (secret spans of one
		// level do not nest).
		k := sort.Search(len(secrets), func(i int) bool { return secrets[i].Start >= p.End })
		covered := false
		for j := k - 1; j >= 0 && j >= k-16; j-- {
			s := secrets[j]
			if s.Level != LevelPossible && s.End > p.Start {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, p)
		}
	}
	return out
}
