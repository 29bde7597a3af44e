package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// Re-evaluating a source. When the user finds a source unreliable (an
// agent, one session of it, an import run), everything whose standing
// rests on it goes back to the user: its live memories are held in the
// quarantine, out of every agent's reach, until the user approves
// (keeps) or rejects (deletes) each. Nothing is lost: a held memory waits
// in the archive under its own id, with its versions and provenance, and
// approving brings it back as it was.
//
// What rests on a source S (an agent A, or A in session X):
//
//   - written by S: memories A owns (agents write only as themselves, and
//     a merge or split keeps the owner of its source) or whose provenance
//     begins with A; for a session, those A wrote or changed in it (the
//     memory's source.session_id, or the audit log's entries of A's
//     writes, which name the session the channel gave; an agent cannot
//     hide a write from its session's review by naming another session);
//   - merged from S: the result of a merge one of whose sources, followed
//     through the archive's merge pointers, was written by S, while its
//     text still holds that source's text (a merge that kept another
//     source's text does not rest on S);
//   - confirmed only by S: another agent's memory whose only support
//     besides its writer, confirmations (CONFIRMED) and repeated writes
//     merged into it (OBSERVED), comes from A (for a session: A gave it
//     in that session, by the audit log).
//
// The user's verdict stands over any agent's: a memory the user wrote,
// or whose latest word is the user's (a confirmation or a restore, an
// approval from the quarantine, the user's edit or rollback, each after
// the last change of its text by anyone else), is never held; the
// response lists it among those left alone, with the reason. A merge or a
// split by the user is housekeeping, not a verdict on the text.
//
// Sealed memories are examined only while the vault is unlocked; while it
// is locked they are counted (Locked) and left where they are (agents do
// not read them while it is locked either), and the rest is held: running
// it again after unlocking holds them too. A held memory is out of the
// live partitions, so running it again never holds anything twice.

// ReevaluateInput names the source the user found unreliable: an agent,
// or one session of it. An import run is its writer (the importer
// "import:FORMAT", or the agent named with --agent) with its session
// ("import-…", in the audit entries of its writes).
type ReevaluateInput struct {
	Agent   string `json:"agent"`
	Session string `json:"session,omitempty"`
	// DryRun lists what would be held and changes nothing.
	DryRun bool `json:"dry_run,omitempty"`
}

// Reevaluated is one memory a re-evaluation selected, or left alone.
type Reevaluated struct {
	ID        string    `json:"id"`
	Partition Partition `json:"partition"`
	Field     Field     `json:"field"`
	Owner     string    `json:"owner"`
	// Why says why it was selected ("written by claude-code"), or why it
	// was left alone ("you confirmed it since").
	Why string `json:"why"`
	// Text is the memory's text, for a memory outside the sensitive
	// partition.
	Text string `json:"text,omitempty"`
	// QueueID is the review item that holds it, once held.
	QueueID string `json:"queue_id,omitempty"`
}

// ReevaluateResponse reports a re-evaluation. Message sums it up in one
// sentence, for the CLI and the app to show as it is.
type ReevaluateResponse struct {
	Response
	// Source names the source in words: "claude-code", or
	// "claude-code (session s1)".
	Source string `json:"source"`
	DryRun bool   `json:"dry_run"`
	// Selected are the live memories that rest on the source, oldest
	// first: held for review unless DryRun.
	Selected []Reevaluated `json:"selected"`
	// Held is how many of them were moved into the quarantine (0 in a
	// dry run).
	Held int `json:"held"`
	// LeftAlone are memories that rest on the source but stand on the
	// user's verdict, and the user's own memories the source confirmed.
	LeftAlone []Reevaluated `json:"left_alone,omitempty"`
	// Displaced are archived memories the source's word put there: a
	// conflict a selected memory won, or its refutation (the sweep
	// archives what an agent refutes, unless it is more trusted than the
	// agent or the user confirmed it). They stay in the archive,
	// restorable; the user decides.
	Displaced []Reevaluated `json:"displaced,omitempty"`
	// Locked counts sealed memories not examined because the vault is
	// locked.
	Locked int `json:"locked,omitempty"`
	// Queued counts the source's writes already waiting in the quarantine.
	Queued int `json:"queued,omitempty"`
}

// Reasons a memory is held, as a review item says them of "it".
const (
	whyWritten   = "written by it"
	whyChanged   = "changed by it"
	whyConfirmed = "confirmed only by it"
	whyObserved  = "repeated only by it (its duplicate writes were merged into it)"
)

// reviewedNote is the evidence of the confirmation that approving a held
// memory records: the user's verdict, as a restore's.
const reviewedNote = "kept after review by the user"

// Reevaluate holds for the user's review everything whose standing rests
// on the source in (see above), or with in.DryRun only lists it. The
// memories are moved into the quarantine as re-evaluation items (each
// audited as quarantine:add with the reason "re-evaluate SOURCE");
// Approve brings one back as it was, recording the user's confirmation,
// and Reject deletes it. Operator only.
func (s *Service) Reevaluate(ctx context.Context, req Request, in ReevaluateInput) ReevaluateResponse {
	return s.rv.Reevaluate(ctx, req, in)
}

// Reevaluate is Service.Reevaluate's work.
func (s *reviewer) Reevaluate(ctx context.Context, req Request, in ReevaluateInput) ReevaluateResponse {
	if r, ok := s.operatorGate(req); !ok {
		return ReevaluateResponse{Response: r}
	}
	in.Agent, in.Session = strings.TrimSpace(in.Agent), strings.TrimSpace(in.Session)
	switch {
	case in.Agent == "":
		return ReevaluateResponse{Response: Response{StatusInvalid, "invalid: name the agent (or importer) whose memories to review"}}
	case in.Agent == vault.AgentOperator:
		return ReevaluateResponse{Response: Response{StatusInvalid, "invalid: your own memories are never re-evaluated; name an agent"}}
	case !policy.ValidID(in.Agent):
		return ReevaluateResponse{Response: Response{StatusInvalid, fmt.Sprintf("invalid: agent %q is not a name Engram gives (at most %d characters of A-Z, a-z, 0-9 and ._:/@-)", in.Agent, policy.MaxIDLen)}}
	case in.Session != "" && !policy.ValidID(in.Session):
		return ReevaluateResponse{Response: Response{StatusInvalid, fmt.Sprintf("invalid: session %q is not a session id Engram keeps (at most %d characters of A-Z, a-z, 0-9 and ._:/@-)", in.Session, policy.MaxIDLen)}}
	}
	src := source{agent: in.Agent, session: in.Session}
	out := ReevaluateResponse{Response: Response{Status: StatusOK}, Source: src.String(), DryRun: in.DryRun}
	sel, err := s.selectFor(ctx, src, &out)
	if err != nil {
		return ReevaluateResponse{Response: s.fail("re-evaluate", err)}
	}
	if !in.DryRun && len(sel) > 0 {
		n, err := s.hold(ctx, req, src, sel, &out)
		out.Held = n
		if err != nil {
			r := s.fail("re-evaluate", err)
			r.Message = fmt.Sprintf("%s; %d of %d memories were held before it stopped (run it again to hold the rest)", r.Message, n, len(sel))
			out.Response = r
			return out
		}
	}
	out.Message = out.summary()
	return out
}

// source is a source under re-evaluation.
type source struct{ agent, session string }

func (src source) String() string {
	if src.session == "" {
		return src.agent
	}
	return src.agent + " (session " + src.session + ")"
}

// holdNote is what a held memory's archive record says: the archive
// reason Approve and Reject recognise it by.
func (src source) holdNote() string { return "held for review: " + src.String() + " found unreliable" }

// auditReason labels the audit entries of the re-evaluation (identifiers
// only: the agent's name and the session id).
func (src source) auditReason() string {
	if src.session == "" {
		return "re-evaluate " + src.agent
	}
	return "re-evaluate " + src.agent + " session " + src.session
}

// named says a reason of "it" with the source's name, for a listing.
func (src source) named(why string) string {
	who := src.agent
	if src.session != "" {
		who += " in session " + src.session
	}
	return strings.Replace(why, "by it", "by "+who, 1)
}

// selection is one memory to hold and why (said of "it").
type selection struct {
	m   vault.Memory
	why string
}

// attribution is what the audit log says a source did in its session:
// the memories it wrote or changed there, and those it verified there.
type attribution struct {
	wrote    map[string]string // memory id -> whyWritten or whyChanged
	verified map[string]bool
}

// attribute reads the audit log for what src's agent did in src's
// session. Entries older than the log's retention are gone: a session's
// verdicts older than that are not attributed to it (its writes still
// are, by their source.session_id).
func (s *reviewer) attribute(src source) (attribution, error) {
	at := attribution{wrote: map[string]string{}, verified: map[string]bool{}}
	if src.session == "" {
		return at, nil
	}
	entries, err := s.v.AuditLog(vault.AuditFilter{Agent: src.agent})
	if err != nil {
		return at, err
	}
	for _, e := range entries {
		if e.Session != src.session || e.MemoryID == "" || e.Result != vault.ResultOK {
			continue
		}
		switch e.Action {
		case vault.ActionWrite:
			at.wrote[e.MemoryID] = whyWritten
		case vault.ActionUpdate, vault.ActionRollback:
			if strings.HasPrefix(e.Reason, string(vault.OpVerify)) && e.VersionBefore == e.VersionAfter {
				at.verified[e.MemoryID] = true
			} else if at.wrote[e.MemoryID] == "" {
				at.wrote[e.MemoryID] = whyChanged
			}
		}
	}
	return at, nil
}

// wrote says whether src wrote m (whyWritten or whyChanged), or "".
func (src source) wrote(m *vault.Memory, at attribution) string {
	if m.Owner != src.agent && m.Provenance.Genesis.Agent != src.agent {
		return ""
	}
	if src.session == "" {
		return whyWritten
	}
	if m.Source.SessionID == src.session || m.Provenance.Genesis.Source.SessionID == src.session {
		return whyWritten
	}
	return at.wrote[m.ID]
}

// support says whether m's standing besides its writer rests on src alone:
// the only agent other than its owner (and the user) that confirmed it or
// wrote it again is src's agent (in src's session, when one is named).
// It returns whyConfirmed or whyObserved, or "".
func (src source) support(m *vault.Memory, at attribution) string {
	others := map[string]bool{}
	confirmed := false
	for _, v := range m.Provenance.Verifications {
		if v.Agent == vault.AgentOperator || v.Agent == m.Owner || (v.Verdict != vault.Confirmed && v.Verdict != vault.Observed) {
			continue
		}
		others[v.Agent] = true
		if v.Agent == src.agent && v.Verdict == vault.Confirmed {
			confirmed = true
		}
	}
	if len(others) != 1 || !others[src.agent] || (src.session != "" && !at.verified[m.ID]) {
		return ""
	}
	if confirmed {
		return whyConfirmed
	}
	return whyObserved
}

// vouched says whether src's agent confirmed m or wrote it again (in src's
// session, when one is named).
func (src source) vouched(m *vault.Memory, at attribution) bool {
	for _, v := range m.Provenance.Verifications {
		if v.Agent == src.agent && (v.Verdict == vault.Confirmed || v.Verdict == vault.Observed) {
			return src.session == "" || at.verified[m.ID]
		}
	}
	return false
}

// userVerdict says why the user's verdict stands on m, or "": the user
// wrote it, or the user's latest act on it (a confirmation or restore,
// an approval from the quarantine, an edit or rollback) came at or after
// the last change of its text by anyone else. merged says that m is the
// result of a merge: its genesis is then a change of text by its
// sources' writers, whoever merged them.
func userVerdict(m *vault.Memory, merged bool) string {
	if m.Owner == vault.AgentOperator && !merged {
		return "your own memory"
	}
	var user, other time.Time
	what := ""
	g := m.Provenance.Genesis
	switch {
	case !merged && (g.Context == approvedNote || g.Context == editedApprovedNote):
		user, what = g.Time, "you approved it from the quarantine"
	case merged || g.Agent != vault.AgentOperator:
		other = g.Time
		// A split by the user of an agent's memory (genesis the user's,
		// owner the agent): neither a verdict nor a change by another.
	}
	for _, mod := range m.Provenance.Modifications {
		if mod.Operation != vault.OpUpdate && mod.Operation != vault.OpRollback {
			continue
		}
		switch {
		case mod.Agent == vault.AgentOperator && !mod.Time.Before(user):
			user, what = mod.Time, "you edited it since"
		case mod.Agent != vault.AgentOperator && mod.Time.After(other):
			other = mod.Time
		}
	}
	for _, v := range m.Provenance.Verifications {
		if v.Agent == vault.AgentOperator && v.Verdict == vault.Confirmed && !v.Time.Before(user) {
			user, what = v.Time, "you confirmed it since"
			if v.Evidence == RestoredNote {
				what = "you restored it since"
			} else if v.Evidence == reviewedNote {
				what = "you kept it after an earlier review"
			}
		}
	}
	if what != "" && !user.Before(other) {
		return what
	}
	return ""
}

// mergedInto is the id of the memory an archived memory was merged into,
// or "" (archived for another reason).
func mergedInto(m *vault.Memory) string {
	if m.Archive == nil || !strings.HasPrefix(m.Archive.Reason, "merged into ") {
		return ""
	}
	return m.Archive.Pointer
}

// supersededBy is the id of the memory that won a conflict against an
// archived memory, or "".
func supersededBy(m *vault.Memory) string {
	if m.Archive == nil || !strings.HasPrefix(m.Archive.Reason, "conflicts with memory ") {
		return ""
	}
	return m.Archive.Pointer
}

// refutedBy says whether the sweep archived m for a refutation whose
// latest giver is src's agent (in src's session, when one is named).
func (src source) refutedBy(m *vault.Memory, at attribution) bool {
	if m.Archive == nil || !strings.HasPrefix(m.Archive.Reason, "refuted") {
		return false
	}
	vs := m.Provenance.Verifications
	for i := len(vs) - 1; i >= 0; i-- {
		if vs[i].Verdict == vault.Refuted {
			return vs[i].Agent == src.agent && (src.session == "" || at.verified[m.ID])
		}
	}
	return false
}

// selectFor finds what rests on src, filling out's LeftAlone, Displaced,
// Locked, Queued and Selected; it returns the memories to hold. It reads
// and changes nothing else.
func (s *reviewer) selectFor(ctx context.Context, src source, out *ReevaluateResponse) ([]selection, error) {
	at, err := s.attribute(src)
	if err != nil {
		return nil, err
	}
	// The archive first: merge sources (to follow their pointers), the
	// losers of conflicts and what src refuted.
	merges := map[string]*vault.Memory{} // archived memory id -> it, for those merged into another
	targets := map[string]bool{}         // ids that memories were merged into
	var losers []vault.Memory
	hidden, err := s.v.Each(vault.ListFilter{Partitions: []vault.Partition{vault.Archive}, OnDamaged: s.damaged.Skip}, func(m *vault.Memory) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if p := mergedInto(m); p != "" {
			c := *m
			merges[m.ID] = &c
			targets[p] = true
		} else if supersededBy(m) != "" {
			losers = append(losers, *m)
		} else if src.refutedBy(m, at) {
			out.Displaced = append(out.Displaced, reevaluated(m, "archived after "+src.agent+" refuted it; 'engram memory restore "+m.ID+"' brings it back"))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Locked += hidden
	// Follow the merge pointers from the archived sources src wrote: a
	// merge result that still holds its source's text rests on src.
	// seed maps each archived memory reached to the memory of src's it
	// came from; live maps a memory outside the archive that one was
	// merged into to the ways it was reached.
	type way struct{ seed, prev string }
	seed := map[string]string{}
	live := map[string][]way{}
	var walk []string
	for id, m := range merges {
		if src.wrote(m, at) != "" && userVerdict(m, targets[id]) == "" {
			seed[id] = id
			walk = append(walk, id)
		}
	}
	slices.Sort(walk)
	for len(walk) > 0 {
		id := walk[0]
		walk = walk[1:]
		m := merges[id]
		p := mergedInto(m)
		next, archived := merges[p]
		switch {
		case !archived:
			live[p] = append(live[p], way{seed[id], id}) // checked with its text below
		case seed[p] == "" && strings.Contains(next.Content, m.Content) && userVerdict(next, true) == "":
			seed[p] = seed[id]
			walk = append(walk, p)
		}
	}

	var sel []selection
	hidden, err = s.v.Each(vault.ListFilter{OnDamaged: s.damaged.Skip}, func(m *vault.Memory) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		why := src.wrote(m, at)
		for _, w := range live[m.ID] {
			if why == "" && strings.Contains(m.Content, merges[w.prev].Content) {
				why = "merged from memory " + w.seed + ", which was " + whyWritten
			}
		}
		if why == "" && m.Owner != vault.AgentOperator && m.Owner != src.agent {
			why = src.support(m, at)
		}
		if why == "" {
			if m.Owner == vault.AgentOperator && !targets[m.ID] && src.vouched(m, at) {
				out.LeftAlone = append(out.LeftAlone, reevaluated(m, "your own memory, which "+src.agent+" confirmed or wrote again"))
			}
			return nil
		}
		if stands := userVerdict(m, targets[m.ID]); stands != "" {
			out.LeftAlone = append(out.LeftAlone, reevaluated(m, src.named(why)+"; left alone: "+stands))
			return nil
		}
		sel = append(sel, selection{m: *m, why: why})
		return nil
	})
	if err != nil {
		return nil, err
	}
	out.Locked += hidden
	slices.SortStableFunc(sel, func(a, b selection) int {
		return cmp.Or(a.m.Created.Compare(b.m.Created), strings.Compare(a.m.ID, b.m.ID))
	})
	held := map[string]bool{}
	for _, x := range sel {
		out.Selected = append(out.Selected, reevaluated(&x.m, src.named(x.why)))
		held[x.m.ID] = true
	}
	for i := range losers {
		if w := supersededBy(&losers[i]); held[w] {
			out.Displaced = append(out.Displaced, reevaluated(&losers[i], "archived when memory "+w+", which rests on it, superseded it; 'engram memory restore "+losers[i].ID+"' brings it back"))
		}
	}
	if recs, _, err := s.v.QueueList(); err == nil {
		for _, rec := range recs {
			if it, err := quarantine.Decode(rec.Data); err == nil && it.State == quarantine.Pending && it.Kind == quarantine.KindWrite &&
				it.Agent == src.agent && (src.session == "" || it.Session == src.session) {
				out.Queued++
			}
		}
	}
	return sel, nil
}

func reevaluated(m *vault.Memory, why string) Reevaluated {
	r := Reevaluated{ID: m.ID, Partition: m.Partition, Field: m.Field, Owner: m.Owner, Why: why}
	if !m.Sensitive() {
		r.Text = m.Content
	}
	return r
}

// hold moves the selected memories into the quarantine: a re-evaluation
// item for each (one that already holds the memory, left by an
// interrupted run, is kept), then the memories into the archive, a
// thousand per transaction. Stopped half way, a run leaves items whose
// memories are still live; running it again completes it, and Approve or
// Reject of such an item does what it says. It returns how many memories
// it archived.
func (s *reviewer) hold(ctx context.Context, req Request, src source, sel []selection, out *ReevaluateResponse) (int, error) {
	recs, _, err := s.v.QueueList()
	if err != nil {
		return 0, err
	}
	items := map[string]string{} // held memory id -> its item
	for _, rec := range recs {
		if it, err := quarantine.Decode(rec.Data); err == nil && it.Kind == quarantine.KindReevaluation {
			items[it.Memory.ID] = it.ID
		}
	}
	now := s.now().UTC()
	for i, x := range sel {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		if q, ok := items[x.m.ID]; ok {
			out.Selected[i].QueueID = q
			continue
		}
		it := &quarantine.Item{
			ID: uuid.NewString(), State: quarantine.Pending, Kind: quarantine.KindReevaluation, Memory: x.m,
			Agent: src.agent, Session: src.session, Reason: src.holdNote() + "; " + x.why, Created: now,
		}
		// What the guard finds in it now, as the agent's write: the
		// review shows it, and the guardian weighs it.
		res := s.guard.Check(guard.Input{Text: x.m.Content, Source: string(vault.SourceAIInference), Field: string(x.m.Field)})
		it.Risk, it.Threat, it.Findings = res.Risk, res.Threat, queueFindings(x.m.Content, x.m.Content, res.Findings)
		it.Reasons = res.Reasons                                                // the guard's findings; Reason says why it is held
		it.Proposal, it.Guardian = quarantine.Guardian(it, quarantine.Review{}) // refreshed against the live memories when listed
		data, err := it.Encode()
		if err != nil {
			return 0, err
		}
		e := vault.AuditEntry{Action: vault.ActionQuarantine, Agent: req.Caller.Name(), Field: x.m.Field, Partition: x.m.Partition, MemoryID: x.m.ID,
			ContentHash: s.fingerprint(x.m.Content), Result: vault.ResultOK, Reason: src.auditReason()}
		if err := s.v.QueuePut(it.ID, data, it.Sensitive(), e); err != nil {
			return 0, err
		}
		out.Selected[i].QueueID = it.ID
	}
	a := req.actor()
	a.Reason = src.auditReason()
	n := 0
	for batch := range slices.Chunk(sel, archiveBatch) {
		reqs := make([]vault.ArchiveRequest, len(batch))
		for i, x := range batch {
			reqs[i] = vault.ArchiveRequest{ID: x.m.ID, Reason: src.auditReason(), Note: src.holdNote()}
		}
		k, err := s.v.ArchiveAll(reqs, a)
		n += k
		if err != nil {
			return n, err
		}
		for _, x := range batch {
			if m, err := s.v.Peek(x.m.ID); err == nil {
				s.idx.Put(&m) // archived: out of agents' recall, in the user's search of the archive
			}
		}
	}
	return n, nil
}

// summary is the response in one sentence.
func (r *ReevaluateResponse) summary() string {
	var b strings.Builder
	n := len(r.Selected)
	switch {
	case n == 0:
		fmt.Fprintf(&b, "%s: no live memory rests on it", r.Source)
	case r.DryRun:
		fmt.Fprintf(&b, "%s: %s would be held for your review (%s)", r.Source, count(n, "live memory", "live memories"), r.Reasons())
	default:
		fmt.Fprintf(&b, "%s: %s held for your review (%s); approve (keep) or reject (delete) each in the quarantine", r.Source, count(r.Held, "memory", "memories"), r.Reasons())
	}
	own, stands := 0, 0
	for _, l := range r.LeftAlone {
		if strings.HasPrefix(l.Why, "your own memory") {
			own++
		} else {
			stands++
		}
	}
	if own > 0 {
		fmt.Fprintf(&b, "; %s that it confirmed or wrote again %s left alone", count(own, "of your own memories", "of your own memories"), wasWere(own))
	}
	if stands > 0 {
		fmt.Fprintf(&b, "; %s resting on it %s left alone because you confirmed, approved or edited %s since", count(stands, "memory", "memories"), wasWere(stands), itThem(stands))
	}
	if k := len(r.Displaced); k > 0 {
		fmt.Fprintf(&b, "; %s that its word put in the archive (a conflict it won, a refutation) %s there for you to restore", count(k, "memory", "memories"), stayStays(k))
	}
	if r.Queued > 0 {
		fmt.Fprintf(&b, "; %s already %s in the quarantine", count(r.Queued, "of its writes", "of its writes"), waitWaits(r.Queued))
	}
	if r.Locked > 0 {
		fmt.Fprintf(&b, "; %s could not be examined while the vault is locked (agents cannot read them while it is locked either): unlock Engram and run it again to review them too", count(r.Locked, "sealed memory", "sealed memories"))
	}
	return b.String()
}

// Reasons counts the selected memories by why: "2 written by it, 1
// confirmed only by it".
func (r *ReevaluateResponse) Reasons() string {
	kinds := []struct{ prefix, label string }{
		{"written by", "written by it"}, {"changed by", "changed by it"}, {"merged from", "merged from its memories"},
		{"confirmed only by", "confirmed only by it"}, {"repeated only by", "repeated only by it"},
	}
	var parts []string
	for _, k := range kinds {
		c := 0
		for _, m := range r.Selected {
			if strings.HasPrefix(m.Why, k.prefix) {
				c++
			}
		}
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c, k.label))
		}
	}
	return strings.Join(parts, ", ")
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func wasWere(n int) string   { return map[bool]string{true: "was", false: "were"}[n == 1] }
func itThem(n int) string    { return map[bool]string{true: "it", false: "them"}[n == 1] }
func stayStays(n int) string { return map[bool]string{true: "stays", false: "stay"}[n == 1] }
func waitWaits(n int) string { return map[bool]string{true: "waits", false: "wait"}[n == 1] }

// heldBy reports whether m is held in the archive for it's review.
func heldBy(m *vault.Memory, it *quarantine.Item) bool {
	src := source{agent: it.Agent, session: it.Session}
	return m.Partition == vault.Archive && m.Archive != nil && m.Archive.Reason == src.holdNote()
}

// approveHeld keeps a memory held for re-evaluation: the user's
// confirmation (reviewedNote) first, as a restore records one, then the
// memory back to the partition it came from, as it was (same id,
// versions, provenance); then the item goes. A memory that is live
// already (a run stopped before archiving it, or restored since) gets
// the confirmation alone.
func (s *reviewer) approveHeld(ctx context.Context, req Request, it *QueueItem) MemoryResponse {
	id := it.Memory.ID
	src := source{agent: it.Agent, session: it.Session}
	cur, err := s.v.Peek(id)
	if errors.Is(err, vault.ErrNotFound) {
		if r := s.dropHeld(req, it, vault.ActionApprove, src.auditReason()+": the memory was gone"); !r.OK() {
			return MemoryResponse{Response: r}
		}
		return MemoryResponse{Response: Response{StatusNotFound, fmt.Sprintf("memory %s is gone (deleted or purged since it was held); its review item was removed", id)}}
	}
	if err != nil {
		return MemoryResponse{Response: s.fail("approve", err)}
	}
	if cur.Partition == vault.Archive && !heldBy(&cur, it) {
		return MemoryResponse{Response: Response{StatusConflict, fmt.Sprintf("memory %s was archived again since it was held (%s): it stays in the archive; restore it there ('engram memory restore %s'), or reject this item to delete it", id, cur.Archive.Reason, id)}}
	}
	a := req.actor()
	a.Reason = src.auditReason()
	if _, err := s.v.Verify(id, vault.Confirmed, reviewedNote, a); err != nil {
		return MemoryResponse{Response: s.fail("approve", err)}
	}
	if cur.Partition == vault.Archive {
		if cur, err = s.v.Restore(id, a); err != nil {
			return MemoryResponse{Response: s.fail("approve", err)}
		}
	} else if cur, err = s.v.Peek(id); err != nil {
		return MemoryResponse{Response: s.fail("approve", err)}
	}
	s.idx.Put(&cur)
	if r := s.dropHeld(req, it, vault.ActionApprove, src.auditReason()+": kept"); !r.OK() {
		return MemoryResponse{Response: r}
	}
	return MemoryResponse{Response: Response{StatusOK, fmt.Sprintf("kept memory %s: back in %s as it was, with your confirmation", id, cur.Partition)}, Memory: &cur}
}

// rejectHeld deletes a memory held for re-evaluation, with its versions
// (its bytes are scrubbed from the file as every removal's), then the
// item. A memory restored or changed since it was held is left as it is
// and the item stays: the user's later act stands until the user
// approves the item or deletes the memory.
func (s *reviewer) rejectHeld(ctx context.Context, req Request, it *QueueItem) Response {
	id := it.Memory.ID
	src := source{agent: it.Agent, session: it.Session}
	cur, err := s.v.Peek(id)
	switch {
	case errors.Is(err, vault.ErrNotFound):
		return s.dropHeld(req, it, vault.ActionDismiss, src.auditReason()+": the memory was gone")
	case err != nil:
		return s.fail("reject", err)
	case !heldBy(&cur, it) && (cur.Partition == vault.Archive || cur.Version != it.Memory.Version):
		return Response{StatusConflict, fmt.Sprintf("memory %s was restored or changed since it was held: it was left as it is; delete it in Memories if you want it gone, or approve this item to keep it", id)}
	}
	a := req.actor()
	a.Reason = src.auditReason() + ": rejected"
	if err := s.v.Delete(id, a); err != nil && !errors.Is(err, vault.ErrNotFound) {
		return s.fail("reject", err)
	}
	s.idx.Remove(id)
	r := s.dropHeld(req, it, vault.ActionDismiss, src.auditReason()+": deleted")
	if r.OK() {
		r.Message = fmt.Sprintf("deleted memory %s with its versions", id)
	}
	return r
}

// dropHeld removes a re-evaluation item, audited as action with reason.
func (s *reviewer) dropHeld(req Request, it *QueueItem, action vault.Action, reason string) Response {
	e := vault.AuditEntry{Action: action, Agent: req.Caller.Name(), Session: req.Caller.Session, MemoryID: it.Memory.ID, Field: it.Memory.Field,
		ContentHash: s.fingerprint(it.Memory.Content), Result: vault.ResultOK, Reason: reason}
	if err := s.v.QueueDelete(it.ID, e); err != nil {
		return s.fail("quarantine delete", err)
	}
	return Response{Status: StatusOK}
}

// KindReevaluation is the kind of a queue item that holds a stored
// memory for re-evaluation (quarantine.KindReevaluation).
const KindReevaluation = quarantine.KindReevaluation

// ReevaluateSource names the source a re-evaluation item holds its memory
// for, as the item's reason does: "claude-code", or "claude-code
// (session s1)".
func ReevaluateSource(it QueueItem) string {
	return source{agent: it.Agent, session: it.Session}.String()
}

// IsImportSession reports whether a session id names an import run
// (ImportSessionPrefix): its writer's memories written in it are what
// that import stored.
func IsImportSession(session string) bool { return strings.HasPrefix(session, ImportSessionPrefix) }
