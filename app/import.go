package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/engram-app/engram/app/importer"
	"github.com/engram-app/engram/app/policy"
	"github.com/engram-app/engram/quarantine"
	"github.com/engram-app/engram/quarantine/guard"
	"github.com/engram-app/engram/vault"
)

// Importing the files of other tools (CLAUDE.md, Cursor rules, an MCP
// memory file, a mem0 export) is a write route like Store: each entry is
// described as a proposal and passes admit, and ImportEntries keeps only
// its routing.
//
// Trust comes from the channel, and the channel here is a file. The user
// runs the import at the command line, but the file's text is external
// content: a cloned repository's AGENTS.md or a rules file someone sent
// can carry planted instructions. So entries are written by an importer,
// never with the user's trust: an agent caller named "import:FORMAT" (or
// the registered agent the user names), with at most standard trust, the
// source tool_output and the channel's confidence, in the episodic tier.
// Whatever an entry says, the guard judges it as an agent's write: a
// planted instruction waits in the quarantine (or is refused as hostile,
// with a sealed copy kept there), a secret is redacted, a possible secret
// waits for the user's confirmation, personal data goes to the sensitive
// partition. An import's refusals are audited but do not count against an
// agent: the importer is not one, and the user asked for the import.

// ImporterPrefix begins the name imported memories are written under when
// no agent is named: "import:claude". Agent names cannot hold ':', so no
// registered agent owns or reads them as its own.
const ImporterPrefix = "import:"

// ImportSessionPrefix begins the session id of an import run
// ("import-3fa9c0d2e1b4"): its entries are written in that session, so
// what one import stored can be reviewed (Reevaluate).
const ImportSessionPrefix = "import-"

// importTool is the source's tool of an imported memory.
const importTool = "engram-import"

// ImportOptions configure ImportEntries.
type ImportOptions struct {
	// Format is the files' format; it names the importer.
	Format importer.Format
	// Agent, when set, writes the entries as that registered agent's: its
	// fields, product, group and trust (never more than standard), so that
	// it and the agents that read its memories recall them. It must be
	// active. Its "may confirm" grant does not apply.
	Agent string
	// Partition is the partition asked for ("" for the default: internal,
	// read by the user and, with Agent, by the agents that read that
	// agent's memories; public is read by every agent).
	Partition Partition
	// DryRun decides every entry and writes nothing.
	DryRun bool
	// BatchSize is how many entries are screened together and, at most,
	// stored in one commit (0: ImportBatch). 1 stores each entry in a
	// commit of its own. The outcomes do not depend on it.
	BatchSize int
	// Progress, when set, is told after each batch is durable how many
	// entries are done of how many.
	Progress func(done, total int)
}

// ImportBatch is how many entries an import screens together (in
// parallel: the guard's checks are CPU-bound) and stores in one commit
// at most: one fsync for the batch instead of one per entry.
const ImportBatch = 256

// ImportOutcome is what happened to one entry.
type ImportOutcome string

// Outcomes of an imported entry.
const (
	ImportStored  ImportOutcome = "stored"  // a new memory
	ImportMerged  ImportOutcome = "merged"  // a duplicate of an existing memory, merged into it
	ImportQueued  ImportOutcome = "queued"  // waits in the quarantine for the user
	ImportRefused ImportOutcome = "refused" // hostile, or a secret the policy refuses
	ImportSkipped ImportOutcome = "skipped" // invalid here: too long, a field not granted
)

// ImportResult is the outcome of one entry.
type ImportResult struct {
	Where   string        `json:"where"`
	Outcome ImportOutcome `json:"outcome"`
	// Why says why an entry was queued, refused, skipped or merged.
	Why string `json:"why,omitempty"`
	// ID is the memory's (stored, merged) or the quarantine item's
	// (queued); empty in a dry run.
	ID        string    `json:"id,omitempty"`
	Field     Field     `json:"field,omitempty"`
	Partition Partition `json:"partition,omitempty"`
	Redacted  bool      `json:"redacted,omitempty"`
	Warnings  []string  `json:"warnings,omitempty"`
	// Text is what is (or in a dry run would be) stored, secrets redacted,
	// for a stored or merged entry outside the sensitive partition.
	Text string `json:"text,omitempty"`
}

// ImportEntriesResponse reports an import, entry by entry.
type ImportEntriesResponse struct {
	Response
	Writer  string         `json:"writer"`
	Results []ImportResult `json:"results"`
	// Counts by outcome; Redacted and Sensitive count the entries that had
	// a secret redacted or went to the sensitive partition.
	Stored    int `json:"stored"`
	Merged    int `json:"merged"`
	Queued    int `json:"queued"`
	Refused   int `json:"refused"`
	Skipped   int `json:"skipped"`
	Redacted  int `json:"redacted"`
	Sensitive int `json:"sensitive"`
}

// ImportEntries writes entries read from other tools' files (see
// importer) through the write admission, as an importer or as the agent
// o.Agent names, never with the user's trust. Only the user may import.
// Entries are decided in order; with o.DryRun nothing is written, and a
// duplicate within the file is found only when its text is the same.
// It stops at the first failure of the vault, with the results so far.
func (s *Service) ImportEntries(ctx context.Context, req Request, entries []importer.Entry, o ImportOptions) ImportEntriesResponse {
	return s.w.ImportEntries(ctx, req, entries, o)
}

// ImportEntries is Service.ImportEntries's work.
func (s *writer) ImportEntries(ctx context.Context, req Request, entries []importer.Entry, o ImportOptions) ImportEntriesResponse {
	if r, ok := s.operatorGate(req); !ok {
		return ImportEntriesResponse{Response: r}
	}
	if _, err := importer.ParseFormat(string(o.Format)); err != nil {
		return ImportEntriesResponse{Response: Response{StatusInvalid, "invalid: " + err.Error()}}
	}
	if o.Partition != "" && o.Partition != vault.Public && o.Partition != vault.Internal && o.Partition != vault.Sensitive {
		return ImportEntriesResponse{Response: Response{StatusInvalid, fmt.Sprintf("invalid: partition %q", o.Partition)}}
	}
	c, r := s.importer(o)
	if !r.OK() {
		return ImportEntriesResponse{Response: r}
	}
	ireq := Request{Caller: c, Authorized: true, importRun: true}
	if r, ok := s.gate(ireq); !ok {
		return ImportEntriesResponse{Response: r}
	}
	defer func() {
		s.sessions.end(c)
		s.recent.forget(splitKey(ireq))
	}()
	out := ImportEntriesResponse{Response: Response{Status: StatusOK}, Writer: c.Name()}
	size := o.BatchSize
	if size <= 0 {
		size = ImportBatch
	}
	im := &importRun{s: s, req: ireq, o: o, seen: map[string]string{}, files: map[string]string{}, size: size}
	if !o.DryRun {
		im.adds = s.v.NewAdds()
	}
	durable := 0 // results whose writes are committed
	stop := func(r Response) {
		out.Response = r
		out.Results = out.Results[:durable]
	}
	// Each batch is screened while the one before it is decided: the
	// screening depends on no decision (see screen).
	type batch struct {
		screened []screened
		joins    map[joinKey]guard.Result
	}
	screenAhead := func(from int) chan batch {
		if from >= len(entries) {
			return nil
		}
		ch := make(chan batch, 1)
		go func() {
			sc, joins := im.screen(entries[from:min(from+size, len(entries))])
			ch <- batch{sc, joins}
		}()
		return ch
	}
	next := screenAhead(0)
	defer func() {
		if next != nil {
			<-next // not left running after the import
		}
	}()
chunks:
	for from := 0; from < len(entries); from += size {
		chunk := entries[from:min(from+size, len(entries))]
		b := <-next
		next = screenAhead(from + size)
		screened := b.screened
		im.joins = b.joins
		for i, e := range chunk {
			if err := ctx.Err(); err != nil {
				// What was decided before commits: its results stand.
				if r := im.flush(); !r.OK() {
					stop(r)
					break chunks
				}
				durable = len(out.Results)
				out.Response = Response{StatusUnavailable, "the import was interrupted"}
				break chunks
			}
			res, r := im.decide(ctx, e, screened[i])
			if !r.OK() {
				stop(r)
				break chunks
			}
			out.Results = append(out.Results, res)
			if im.adds == nil || im.adds.Len() == 0 {
				durable = len(out.Results)
			}
		}
		if r := im.flush(); !r.OK() {
			stop(r)
			break
		}
		durable = len(out.Results)
		if o.Progress != nil {
			o.Progress(durable, len(entries))
		}
	}
	out.tally()
	return out
}

// tally counts the results by outcome.
func (out *ImportEntriesResponse) tally() {
	for _, res := range out.Results {
		switch res.Outcome {
		case ImportStored:
			out.Stored++
		case ImportMerged:
			out.Merged++
		case ImportQueued:
			out.Queued++
		case ImportRefused:
			out.Refused++
		case ImportSkipped:
			out.Skipped++
		}
		if res.Redacted {
			out.Redacted++
		}
		if res.Partition == vault.Sensitive && (res.Outcome == ImportStored || res.Outcome == ImportMerged) {
			out.Sensitive++
		}
	}
}

// importer is the caller an import writes as.
func (s *writer) importer(o ImportOptions) (Caller, Response) {
	c := Caller{
		Agent: ImporterPrefix + string(o.Format), Session: s.importSession(),
		Fields: vault.AgentFields, Read: vault.LivePartitions, Trust: vault.TrustStandard,
	}
	if o.Agent == "" {
		return c, Response{Status: StatusOK}
	}
	a, ok := s.agents.ByName(o.Agent)
	if !ok {
		return c, Response{StatusNotFound, fmt.Sprintf("no agent named %q; 'engram agent list' shows them", o.Agent)}
	}
	if a.Status != vault.AgentActive {
		return c, Response{StatusInvalid, fmt.Sprintf("agent %q is %s: resume it first", a.Name, a.Status)}
	}
	c.Agent, c.Fields, c.Read, c.Group, c.Product = a.Name, a.Fields, a.Read, a.Group, a.Product
	c.Trust = policy.LowerTrust(vault.TrustStandard, a.Trust)
	return c, Response{Status: StatusOK}
}

// importSession is a new import run's session id: ImportSessionPrefix
// and 12 random hex digits. About one in 5,000 such ids is all digits,
// which the session check takes for personal data (a phone number) and
// the import would be refused for: such an id is drawn again (the
// chance that ten in a row are is below 10^-36).
func (s *writer) importSession() string {
	b := make([]byte, 6)
	id := ""
	for range 10 {
		_, _ = rand.Read(b)
		if id = ImportSessionPrefix + hex.EncodeToString(b); s.checkSession(id) == "" {
			break
		}
	}
	return id
}

// importRun is one import's state.
type importRun struct {
	s   *writer
	req Request
	o   ImportOptions
	// seen maps a dry run's entries (partition, field and normalised text)
	// to where they were first found.
	seen map[string]string
	// files maps a file name to how provenance names it.
	files map[string]string
	// size is the batch size (ImportOptions.BatchSize or ImportBatch).
	size int
	// adds holds the memories decided but not yet committed (nil in a dry
	// run); pending are the same memories, as they will be stored.
	adds    *vault.Adds
	pending []vault.Memory
	// joins are the guard's results on texts joined for the split-order
	// check for the batch being decided, screened ahead in parallel (see
	// screen); a text not among them is screened when needed.
	joins map[joinKey]guard.Result
	// reviews are the live memories of a field as the quarantine's
	// guardian reviews a queued entry against them: listed at the first
	// entry of the field queued, and kept up to date with what the import
	// stores, instead of listed again for each (see queue); with batches
	// of one, they are listed for each.
	reviews map[vault.Field]*quarantine.Review
	// admitted are the texts of the last admitted entries before the
	// current batch, oldest first: the writes its first entries may be
	// joined to.
	admitted []string
	// waiting are the writer's writes pending in the quarantine when the
	// import first queued an entry, by field and normalised text, with
	// their item ids: an entry an earlier run queued (interrupted, or run
	// twice) is not queued again for the user to review twice. Nil until
	// then.
	waiting map[string]string
}

// waitingKey names a queued write in importRun.waiting.
func waitingKey(f vault.Field, text string) string { return string(f) + "\x00" + normalise(text) }

// queuedBefore returns the pending quarantine item of the writer's that
// holds the same text for the same field as m, if an earlier run left one.
func (im *importRun) queuedBefore(m vault.Memory) (string, bool) {
	if im.waiting == nil {
		im.waiting = map[string]string{}
		recs, _, err := im.s.v.QueueList()
		if err != nil {
			im.s.log.Warn("import: quarantine list", "err", err)
		}
		for _, rec := range recs {
			it, err := quarantine.Decode(rec.Data)
			if err != nil || it.State != quarantine.Pending || it.Agent != im.req.Caller.Name() || it.Kind != quarantine.KindWrite {
				continue
			}
			im.waiting[waitingKey(it.Memory.Field, it.Memory.Content)] = it.ID
		}
	}
	id, ok := im.waiting[waitingKey(m.Field, m.Content)]
	return id, ok
}

// joinKey names one screening of a joined text.
type joinKey struct {
	field vault.Field
	text  string
}

// fileName is how provenance names a file: its name, unless the guard
// finds it harmful (a secret, personal data or an instruction), since
// provenance is shown as it is.
func (im *importRun) fileName(file string) string {
	name, ok := im.files[file]
	if !ok {
		name = file
		if !im.harmless(name) {
			name = "a file whose name is not shown"
		}
		im.files[file] = name
	}
	return name
}

// where is an entry's provenance, from parts the guard finds harmless;
// name is fileName's for the entry's file. It is safe for concurrent use.
func (im *importRun) where(e importer.Entry, name string) string {
	w := fmt.Sprintf("imported from %s, line %d", name, e.Line)
	if e.Ref != "" && policy.ValidID(e.Ref) && im.harmless(e.Ref) {
		w += ", id " + e.Ref
	}
	return w
}

func (im *importRun) harmless(s string) bool {
	return im.s.pol.Clean(s, vault.SourceToolOutput, true) == ""
}

// screened is what an entry's screening found, before its turn.
type screened struct {
	res  ImportResult
	in   StoreInput
	skip bool // invalid: res is the outcome
	a    admission
}

// screen does, for a batch of entries, what does not depend on the
// entries before them: provenance, validation, tags, the write policy's
// admission (the guard's screening), and the split-order screenings of
// each admitted entry joined to the admitted entries just before it
// (joins), which the entry's turn looks up instead of screening again. It
// runs on every processor. It reads and changes only files and admitted
// of im, so it may run while the batch before is decided, but not while
// another batch is screened.
func (im *importRun) screen(chunk []importer.Entry) ([]screened, map[joinKey]guard.Result) {
	s, req := im.s, im.req
	names := make([]string, len(chunk))
	for i, e := range chunk {
		names[i] = im.fileName(e.File)
	}
	out := make([]screened, len(chunk))
	parallel(len(chunk), func(i int) {
		e, sc := chunk[i], &out[i]
		sc.res = ImportResult{Where: im.where(e, names[i]), Field: e.Field}
		sc.in = StoreInput{Content: e.Text, Kind: e.Kind, Field: e.Field, Tier: vault.Episodic, Partition: im.o.Partition, Tags: e.Tags}
		if r := ValidateStoreInput(sc.in); !r.OK() {
			sc.skip = true
			sc.res.Outcome, sc.res.Why = ImportSkipped, r.Message
			return
		}
		tags, r := s.checkTags(req, sc.in.Tags)
		if !r.OK() {
			tags = nil
			sc.res.Warnings = append(sc.res.Warnings, "tags left out: "+strings.TrimPrefix(r.Message, "invalid: "))
		}
		// The partition, if any, is the user's --partition, never the file's.
		// Confirmed: the user asked for the import. The importer has no
		// "may confirm" grant, so this only turns what needs the user's
		// confirmation (a possible secret) into a quarantine item to confirm
		// there, instead of a refusal.
		in := sc.in
		sc.a = s.admit(req, policy.Proposal{Confirmed: true, UserPartition: in.Partition != "", Memory: vault.Memory{
			Content: in.Content, Kind: in.Kind, Field: in.Field, Tier: in.Tier, Partition: in.Partition,
			Tags: tags, Source: vault.Source{Type: vault.SourceToolOutput, Tool: importTool},
		}})
	})
	// The joins an admitted entry will most likely be screened in: after
	// each of the splitKeep admitted entries before it.
	type job struct {
		key joinKey
		in  guard.Input
	}
	var jobs []job
	joins := map[joinKey]guard.Result{}
	prev := im.admitted
	for i := range out {
		a := &out[i].a
		if out[i].skip || a.Outcome != policy.Admitted {
			continue
		}
		m := a.Memory
		for _, w := range prev[max(0, len(prev)-splitKeep):] {
			k := joinKey{m.Field, joinWrites(w, m.Content)}
			if _, ok := joins[k]; !ok {
				joins[k] = guard.Result{}
				jobs = append(jobs, job{k, guard.Input{Text: k.text, Source: string(m.Source.Type), Field: string(m.Field)}})
			}
		}
		prev = append(prev, m.Content)
	}
	im.admitted = slices.Clone(prev[max(0, len(prev)-splitKeep):])
	results := make([]guard.Result, len(jobs))
	parallel(len(jobs), func(i int) { results[i] = s.guard.Screen(jobs[i].in) })
	for i, j := range jobs {
		joins[j.key] = results[i]
	}
	return out, joins
}

// parallel calls fn(i) for i from 0 to n-1 on GOMAXPROCS goroutines.
func parallel(n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
}

// screenJoined is the guard's result on a joined text: screened ahead by
// screen, or now.
func (im *importRun) screenJoined(in guard.Input) guard.Result {
	if res, ok := im.joins[joinKey{vault.Field(in.Field), in.Text}]; ok && in.Source == string(vault.SourceToolOutput) {
		return res
	}
	return im.s.guard.Screen(in)
}

// flush commits the memories decided since the last flush, in one
// transaction, and indexes them as stored. It is called before anything
// else the import writes (a merge, a queue item, a refusal's audit
// entry), so the vault and its audit log see every entry in the file's
// order, as one by one. On failure none of them is stored and they leave
// the index.
func (im *importRun) flush() Response {
	if im.adds == nil || im.adds.Len() == 0 {
		return Response{Status: StatusOK}
	}
	pending := im.pending
	im.pending = nil
	if err := im.adds.Commit(); err != nil {
		if im.s.idx.Enabled() {
			for _, m := range pending {
				im.s.idx.Engine().Remove(m.ID)
			}
		}
		return im.s.fail("import", err)
	}
	for i := range pending {
		// Put in the engine as decided (decide): not indexed again.
		im.s.idx.Committed(&pending[i])
		if r := im.reviews[pending[i].Field]; r != nil {
			r.Add(pending[i])
		}
	}
	return Response{Status: StatusOK}
}

// decide decides and, unless dry, writes one screened entry in its turn:
// a new memory waits for the batch's commit (flush), anything else is
// written at once, after the batch so far. The response is not OK only
// when the vault failed.
func (im *importRun) decide(ctx context.Context, e importer.Entry, sc screened) (ImportResult, Response) {
	s, req := im.s, im.req
	res, in, a := sc.res, sc.in, sc.a
	ok := Response{Status: StatusOK}
	if sc.skip {
		return res, ok
	}
	res.Warnings = append(res.Warnings, a.Warnings...)
	res.Partition, res.Redacted = a.Memory.Partition, a.SecretTypes != ""
	switch a.Outcome {
	case policy.Admitted:
	case policy.Queued:
		if a.SealQueue {
			a.QueueReason = "imported text that may be a secret (a long random string or hash): confirm it to store it"
		}
		return im.queue(a, res)
	case policy.Refused:
		res.Outcome, res.Why = ImportRefused, a.Why
		if !im.o.DryRun {
			if r := im.flush(); !r.OK() {
				return res, r
			}
			im.refuse(a, &res)
		}
		return res, ok
	default:
		res.Outcome, res.Why = ImportSkipped, strings.TrimPrefix(a.Why, "invalid: ")
		if !im.o.DryRun {
			if r := im.flush(); !r.OK() {
				return res, r
			}
			im.refuse(a, &res)
		}
		return res, ok
	}
	m := a.Memory
	if m.Partition != vault.Sensitive {
		res.Text = m.Content
	}
	if joined, text, earlier, found := s.splitOrderWith(req, m.Content, findingTypes(a.Result.Findings), guard.Input{Source: string(m.Source.Type), Field: string(m.Field)}, im.screenJoined); found {
		a.Result.Verdict, a.Result.Risk, a.Result.Threat = guard.Suspicious, max(a.Result.Risk, joined.Risk), max(a.Result.Threat, joined.Threat)
		a.Result.Reasons = append(a.Result.Reasons, joined.Reasons...)
		a.QueueReason = fmt.Sprintf("read together with an entry before it (%s), it looks like a planted instruction (%s)", earlier.id, strings.Join(joined.Reasons, "; "))
		a.joined, a.joinedFindings, a.SealQueue = text, joined.Findings, true
		res.Text = ""
		return im.queue(a, res)
	}
	key := string(m.Partition) + "\x00" + string(m.Field) + "\x00" + normalise(m.Content)
	if first, dup := im.seen[key]; dup && im.o.DryRun {
		res.Outcome, res.Why = ImportMerged, "the same as the entry "+first
		return res, ok
	}
	near := s.neighbours(ctx, req.Caller, &m)
	for _, n := range near {
		if n.duplicate() {
			if !im.o.DryRun {
				if r := im.flush(); !r.OK() {
					return res, r
				}
				if im.again(n.doc.ID, res.Where) {
					// The same entry, stored by an earlier run of this
					// import (interrupted, or run twice): not a new
					// observation of it. It is joined to the entries
					// after it as when that run stored it.
					res.Outcome, res.Why, res.ID = ImportSkipped, "imported before (memory "+n.doc.ID+")", n.doc.ID
					s.remember(req, n.doc.ID, m.Content, 1, findingTypes(a.Result.Findings))
					return res, ok
				}
			}
			res.Outcome, res.Why, res.ID = ImportMerged, "a duplicate of memory "+n.doc.ID, n.doc.ID
			if !im.o.DryRun {
				if r := s.duplicateOf(ctx, req, n.doc.ID, &m, nil); !r.OK() {
					return res, r.Response
				}
				s.remember(req, n.doc.ID, m.Content, 0, findingTypes(a.Result.Findings))
			}
			return res, ok
		}
	}
	for _, n := range near {
		if n.sameSubject() && n.negation {
			// An import never archives a memory: the user decides.
			a.Memory = m
			a.QueueReason = fmt.Sprintf("contradicts memory %s (same subject, incompatible content): the user decides", n.doc.ID)
			res.Text = ""
			return im.queue(a, res)
		}
	}
	res.Outcome = ImportStored
	if im.o.DryRun {
		im.seen[key] = res.Where
		s.remember(req, strings.TrimPrefix(res.Where, "imported from "), m.Content, 0, findingTypes(a.Result.Findings))
		return res, ok
	}
	var facts []vault.AuditEntry
	if a.SecretTypes != "" {
		facts = append(facts, vault.AuditEntry{Action: vault.ActionSecretRedacted, Agent: req.Caller.Name(), Session: req.Caller.Session,
			Field: m.Field, ContentHash: s.fingerprint(in.Content), Result: vault.ResultOK, Reason: a.SecretTypes, Redactions: policy.Redactions(a.Result.Findings)})
	}
	got, err := im.adds.Prepare(m, vault.Actor{Agent: req.Caller.Name(), Session: req.Caller.Session, Reason: res.Where, Score: 1 - a.Result.Risk, Audit: facts})
	if err != nil {
		return res, s.fail("import", err)
	}
	// Found by the duplicate and conflict checks of the entries after it
	// before its batch commits; recalled once it has (flush).
	if s.idx.Enabled() {
		if err := s.idx.Engine().Put(docOf(&got), nil); err != nil {
			s.log.Warn("import: index", "err", err)
		}
	}
	im.pending = append(im.pending, got)
	s.remember(req, got.ID, got.Content, got.Version, findingTypes(a.Result.Findings))
	res.ID = got.ID
	if im.adds.Len() >= im.size {
		if r := im.flush(); !r.OK() {
			return res, r
		}
	}
	return res, ok
}

// again reports whether memory id is the entry at where (the same file,
// line and id), stored by an earlier run of the same import as the same
// writer.
func (im *importRun) again(id, where string) bool {
	m, err := im.s.v.Peek(id)
	return err == nil && m.Owner == im.req.Caller.Name() && m.Provenance.Genesis.Context == where &&
		m.Source.Tool == importTool && m.Provenance.Genesis.Agent == im.req.Caller.Name()
}

// queue puts an admitted or queued entry in the quarantine, saying where
// it came from.
func (im *importRun) queue(a admission, res ImportResult) (ImportResult, Response) {
	res.Outcome, res.Why = ImportQueued, a.QueueReason
	if im.o.DryRun {
		return res, Response{Status: StatusOK}
	}
	if r := im.flush(); !r.OK() {
		return res, r
	}
	if id, ok := im.queuedBefore(a.Memory); ok {
		res.Outcome, res.Why, res.ID = ImportSkipped, "queued before (quarantine item "+id+"), still waiting for your review", id
		return res, Response{Status: StatusOK}
	}
	a.QueueReason += " (" + res.Where + ")"
	f := a.Memory.Field
	if im.size == 1 {
		// One by one, as before batches: the memories are listed for each.
		r := im.s.enqueue(context.Background(), im.req, a, nil)
		if r.Status != StatusQuarantined {
			return res, r.Response
		}
		res.ID = r.QueueID
		return res, Response{Status: StatusOK}
	}
	if im.reviews[f] == nil {
		existing, _, _ := im.s.v.List(vault.ListFilter{Field: f, OnDamaged: im.s.damaged.Skip})
		r := quarantine.NewReview(existing)
		if im.reviews == nil {
			im.reviews = map[vault.Field]*quarantine.Review{}
		}
		im.reviews[f] = &r
	}
	r := im.s.enqueueWith(context.Background(), im.req, a, nil, im.reviews[f]) // an import never holds a memory: no partner
	if r.Status != StatusQuarantined {
		return res, r.Response
	}
	res.ID = r.QueueID
	return res, Response{Status: StatusOK}
}

// refuse audits a refused or skipped entry, and keeps a sealed copy of a
// hostile one for the user, as for an agent's write; the refusal is not
// counted against any agent.
func (im *importRun) refuse(a admission, res *ImportResult) {
	s := im.s
	e := vault.AuditEntry{Action: vault.ActionReject, Field: a.Memory.Field, Result: vault.ResultRejected, Reason: a.Why + " (" + res.Where + ")", Size: len(a.Result.Redacted)}
	if a.Outcome != policy.Refused {
		e.Result = vault.ResultDenied
	}
	if a.Memory.Content != "" {
		e.ContentHash = s.fingerprint(a.Memory.Content)
	}
	if a.Hostile {
		s.keepHostile(im.req, a, e.ContentHash)
		res.Why += "; a sealed copy is kept in the quarantine for 30 days"
	}
	s.audit(im.req, e)
}
