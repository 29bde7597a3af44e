package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/engram-app/engram/app"
	"github.com/engram-app/engram/app/host"
)

// row is one line of the memories list.
type row struct {
	ID         string
	Preview    string
	Partition  app.Partition
	Trust      app.Trust
	Confidence float64
	Created    time.Time
	Score      float64 // recall score; 0 when listing
}

// maxListed bounds the rows kept for an empty query: the list widget
// draws only visible rows, but the service still decodes every memory, so
// past this the user narrows with the search or the filters.
const maxListed = 100_000

// searchDelay is how long typing must pause before a search runs: the
// list is not reloaded on every keystroke.
const searchDelay = 250 * time.Millisecond

// memoriesScreen is the searchable list with filters and the detail pane.
type memoriesScreen struct {
	u       *UI
	content fyne.CanvasObject

	search                                   *widget.Entry
	partition, tier, kind, field, trust, age *widget.Select
	minConf                                  *widget.Select
	tag                                      *widget.Entry
	archived                                 *widget.Check
	rows                                     *rows[row]
	list                                     *widget.List
	count                                    *widget.Label
	detail                                   *detailPane

	ready bool // set once every widget exists; callbacks before it are ignored
	timer *time.Timer
	// scheduled counts searches put off by the debounce (tests).
	scheduled int
	// loaded, if set, runs once after the next list is shown.
	loaded func()
	// gen numbers searches so that a slow one finishing late cannot
	// overwrite a newer one's results.
	gen int
}

const anyChoice = "any"

func choices[T ~string](vals []T) []string {
	out := []string{anyChoice}
	for _, v := range vals {
		out = append(out, string(v))
	}
	return out
}

func newMemoriesScreen(u *UI) *memoriesScreen {
	s := &memoriesScreen{u: u}
	s.search = widget.NewEntry()
	s.search.SetPlaceHolder("Search memories (the same hybrid recall agents use)")
	s.search.OnChanged = func(string) { s.debounce() }
	s.search.OnSubmitted = func(string) { s.refresh() }
	sel := func(opts []string) *widget.Select {
		w := widget.NewSelect(opts, func(string) { s.refresh() })
		w.SetSelected(anyChoice)
		return w
	}
	s.partition = sel(choices(app.Partitions))
	s.tier = sel(choices(app.Tiers))
	s.kind = sel(choices(app.Kinds))
	s.field = sel(choices(app.Fields))
	s.trust = sel(choices(app.Trusts))
	s.minConf = sel([]string{anyChoice, "0.3", "0.5", "0.7", "0.9"})
	s.age = sel([]string{anyChoice, "today", "7 days", "30 days", "365 days"})
	s.tag = widget.NewEntry()
	s.tag.SetPlaceHolder("tag")
	s.tag.OnSubmitted = func(string) { s.refresh() }
	s.archived = widget.NewCheck("archived", func(bool) { s.refresh() })
	s.count = widget.NewLabel("")
	s.rows = newRows(
		func() fyne.CanvasObject {
			part, trust, conf := widget.NewLabel("internal"), widget.NewLabel("standard"), widget.NewLabel("0.00")
			part.Importance, trust.Importance = widget.HighImportance, widget.MediumImportance
			text := widget.NewLabel("")
			text.Truncation = fyne.TextTruncateEllipsis
			return container.NewBorder(nil, nil, container.NewHBox(part, trust, conf), nil, text)
		},
		func(r row, o fyne.CanvasObject) {
			c := o.(*fyne.Container)
			left := c.Objects[1].(*fyne.Container)
			part, trust, conf := left.Objects[0].(*widget.Label), left.Objects[1].(*widget.Label), left.Objects[2].(*widget.Label)
			part.SetText(string(r.Partition))
			part.Importance = partitionImportance(r.Partition)
			part.Refresh()
			trust.SetText(string(r.Trust))
			trust.Importance = trustImportance(r.Trust)
			trust.Refresh()
			conf.SetText(fmt.Sprintf("%.2f", r.Confidence))
			c.Objects[0].(*widget.Label).SetText(r.Preview)
		})
	s.list = s.rows.list
	s.detail = newDetailPane(u)
	s.list.OnSelected = func(id widget.ListItemID) {
		u.h.Touch()
		if r, ok := s.rows.at(id); ok {
			s.detail.show(r.ID)
		}
	}
	filters := container.NewGridWithColumns(5,
		labelled("Partition", s.partition), labelled("Tier", s.tier), labelled("Kind", s.kind), labelled("Field", s.field), labelled("Trust", s.trust),
		labelled("Confidence ≥", s.minConf), labelled("Created", s.age), labelled("Tag", s.tag), container.NewVBox(widget.NewLabel(""), s.archived),
	)
	left := container.NewBorder(container.NewVBox(s.search, filters, s.count), nil, nil, nil, s.list)
	split := container.NewHSplit(left, s.detail.content)
	split.Offset = 0.55
	s.content = split
	s.ready = true
	return s
}

func labelled(name string, w fyne.CanvasObject) fyne.CanvasObject {
	return container.NewVBox(widget.NewLabelWithStyle(name, fyne.TextAlignLeading, fyne.TextStyle{Italic: true}), w)
}

func partitionImportance(p app.Partition) widget.Importance {
	switch p {
	case "sensitive":
		return widget.DangerImportance
	case "public":
		return widget.SuccessImportance
	case "archive":
		return widget.LowImportance
	}
	return widget.HighImportance
}

func trustImportance(t app.Trust) widget.Importance {
	switch t {
	case "hostile", "untrusted":
		return widget.WarningImportance
	case "operator", "verified", "system":
		return widget.SuccessImportance
	}
	return widget.MediumImportance
}

// debounce runs the search once typing pauses.
func (s *memoriesScreen) debounce() {
	s.u.h.Touch()
	s.scheduled++
	if s.u.manual {
		return
	}
	if s.timer != nil && s.timer.Stop() {
		s.u.pending.Done() // that search will not run
	}
	s.u.pending.Add(1)
	s.timer = time.AfterFunc(searchDelay, func() {
		defer s.u.pending.Done()
		s.u.onMain(s.refresh)
	})
}

// changed is called when memories changed elsewhere (an agent wrote).
func (s *memoriesScreen) changed() {
	s.refresh()
	s.detail.reload()
}

// filters reads the filter widgets.
func (s *memoriesScreen) filters() app.RecallFilters {
	var f app.RecallFilters
	pick := func(w *widget.Select) string {
		if w.Selected == anyChoice {
			return ""
		}
		return w.Selected
	}
	if p := pick(s.partition); p != "" {
		f.Partitions = []app.Partition{app.Partition(p)}
	}
	if v := pick(s.tier); v != "" {
		f.Tiers = []app.Tier{app.Tier(v)}
	}
	if v := pick(s.kind); v != "" {
		f.Kinds = []app.Kind{app.Kind(v)}
	}
	if v := pick(s.field); v != "" {
		f.Fields = []app.Field{app.Field(v)}
	}
	if t := strings.ToLower(strings.TrimSpace(s.tag.Text)); t != "" {
		f.Tags = []string{t}
	}
	if v := pick(s.minConf); v != "" {
		fmt.Sscanf(v, "%g", &f.MinConfidence)
	}
	now := s.u.now()
	switch pick(s.age) {
	case "today":
		f.After = now.Add(-24 * time.Hour)
	case "7 days":
		f.After = now.Add(-7 * 24 * time.Hour)
	case "30 days":
		f.After = now.Add(-30 * 24 * time.Hour)
	case "365 days":
		f.After = now.Add(-365 * 24 * time.Hour)
	}
	f.IncludeArchived = s.archived.Checked
	return f
}

// refresh runs the search (or lists) in the background and shows it.
func (s *memoriesScreen) refresh() {
	if !s.ready || s.u.h == nil {
		return
	}
	s.gen++
	gen := s.gen
	query, f, trust := strings.TrimSpace(s.search.Text), s.filters(), s.trust.Selected
	h := s.u.h
	var rows []row
	var note string
	s.u.background(func() error {
		rows, note = s.load(h, query, f, trust)
		return nil
	}, func(error) {
		if gen != s.gen {
			return
		}
		s.rows.set(rows)
		s.list.UnselectAll()
		s.count.SetText(note)
		if f := s.loaded; f != nil {
			s.loaded = nil
			f()
		}
	})
}

// load fetches the rows for a query and filters.
func (s *memoriesScreen) load(h *host.Host, query string, f app.RecallFilters, trust string) ([]row, string) {
	svc, req, now := h.Service(), h.Operator(), s.u.now()
	var rows []row
	keepTrust := func(t app.Trust) bool { return trust == anyChoice || trust == "" || string(t) == trust }
	if query != "" {
		r := svc.Recall(s.u.ctx, req, app.RecallInput{Query: query, Limit: 100, Filters: f})
		if !r.OK() {
			return nil, r.Message
		}
		for _, res := range r.Results {
			if keepTrust(res.Trust) {
				rows = append(rows, row{ID: res.ID, Preview: preview(res.Content), Partition: res.Partition, Trust: res.Trust, Confidence: res.Confidence, Created: res.Created, Score: res.Score})
			}
		}
		return rows, fmt.Sprintf("%d results for %q", len(rows), query)
	}
	l := svc.List(s.u.ctx, req, app.ListInput{Partitions: f.Partitions})
	if !l.OK() {
		return nil, l.Message
	}
	for i := range l.Memories {
		m := &l.Memories[i]
		if !matches(f, m) || !keepTrust(m.Trust) {
			continue
		}
		c := app.CurrentConfidence(m, now)
		if f.MinConfidence > 0 && c < f.MinConfidence {
			continue
		}
		rows = append(rows, row{ID: m.ID, Preview: preview(m.Content), Partition: m.Partition, Trust: m.Trust, Confidence: c, Created: m.Created})
		if len(rows) == maxListed {
			break
		}
	}
	note := fmt.Sprintf("%d memories", len(rows))
	if l.Hidden > 0 {
		note += fmt.Sprintf(" · %d sensitive hidden while locked", l.Hidden)
	}
	if l.Damaged > 0 {
		note += fmt.Sprintf(" · %d damaged records left out: run 'engram doctor' and restore them from a backup", l.Damaged)
	}
	return rows, note
}

// matches applies the filters a plain listing does not.
func matches(f app.RecallFilters, m *app.Memory) bool {
	in := func(ok bool, n int) bool { return n == 0 || ok }
	if m.Partition == "archive" && !f.IncludeArchived && !slices.Contains(f.Partitions, "archive") {
		return false
	}
	return in(slices.Contains(f.Tiers, m.Tier), len(f.Tiers)) &&
		in(slices.Contains(f.Kinds, m.Kind), len(f.Kinds)) &&
		in(slices.Contains(f.Fields, m.Field), len(f.Fields)) &&
		in(len(f.Tags) > 0 && slices.ContainsFunc(m.Tags, func(t string) bool { return slices.Contains(f.Tags, t) }), len(f.Tags)) &&
		(f.After.IsZero() || !m.Created.Before(f.After))
}

// preview is the first line of content, cut for a list row.
func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 160 {
		return string(r[:160]) + "…"
	}
	return s
}
