package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
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

// searchLimit bounds a search's results: every result above the recall's
// relevance floor, up to this many.
const searchLimit = 500

// searchDelay is how long typing must pause before a search runs: the
// list is not reloaded on every keystroke.
const searchDelay = 250 * time.Millisecond

// memoriesScreen is the searchable list with filters and the detail pane.
type memoriesScreen struct {
	u       *UI
	content fyne.CanvasObject

	search                                   *widget.Entry
	searchBox                                *shortcutEntry
	filterBox                                *fyne.Container
	filterButton                             *widget.Button
	empty                                    *fyne.Container
	shownKey                                 string // the query and filters of the rows shown
	partition, tier, kind, field, trust, age *widget.Select
	minConf                                  *widget.Select
	tag                                      *widget.Entry
	archived                                 *widget.Check
	rows                                     *rows[row]
	list                                     *widget.List
	headers                                  *fyne.Container
	// order is the chosen sort; unsorted the rows in the service's
	// order, to go back to; query the search whose words are marked.
	order    listSort
	unsorted []row
	query    string
	count    *widget.Label
	detail   *detailPane

	ready bool // set once every widget exists; callbacks before it are ignored
	// stop puts off the search the debounce scheduled last.
	stop func() bool
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
	search := newShortcutEntry(u)
	s.search = &search.Entry
	s.searchBox = search
	s.search.SetPlaceHolder("Search memories (Ctrl+F)")
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
	s.rows = newKeyedRows(
		func() fyne.CanvasObject {
			part, trust, conf, created := widget.NewLabel("internal"), widget.NewLabel("standard"), widget.NewLabel("0.00"), widget.NewLabel("")
			part.Importance, trust.Importance = widget.HighImportance, widget.MediumImportance
			return container.New(memColumns, part, trust, conf, created, newTipCell(u, newMarkedLine()))
		},
		func(r row, o fyne.CanvasObject) {
			c := o.(*fyne.Container).Objects
			part, trust, conf, created := c[0].(*widget.Label), c[1].(*widget.Label), c[2].(*widget.Label), c[3].(*widget.Label)
			part.SetText(string(r.Partition))
			part.Importance = partitionImportance(r.Partition)
			part.Refresh()
			trust.SetText(trustText(r.Trust))
			trust.Importance = trustImportance(r.Trust)
			trust.Refresh()
			conf.SetText(fmt.Sprintf("%.2f", r.Confidence))
			created.SetText(day(r.Created, s.u.now()))
			cell := c[4].(*tipCell)
			text := cell.content.(*markedLine)
			cell.tip = tipText(r.Preview)
			if r.Partition == "sensitive" {
				cell.tip = ""
				text.set([]widget.RichTextSegment{&widget.TextSegment{Text: maskedPreview, Style: widget.RichTextStyle{Inline: true, ColorName: theme.ColorNameDisabled}}})
			} else {
				text.set(highlight(snippet(r.Preview, s.query), s.query))
			}
		}, s.listKey)
	s.list = s.rows.list
	s.detail = newDetailPane(u)
	s.list.OnSelected = func(id widget.ListItemID) {
		u.h.Touch()
		// A click on a row focuses the list, so that Delete and the
		// arrows reach it. Fyne's list asks the driver for the canvas of
		// the embedded widget.List, which the real driver does not know
		// (it draws the rowList around it), and so focused nothing.
		if f, c := s.rows.view.(fyne.Focusable), u.win.Canvas(); c.Focused() != f {
			c.Focus(f)
		}
		if r, ok := s.rows.at(id); ok {
			s.detail.show(r.ID)
		}
	}
	filters := container.NewGridWithColumns(5,
		labelled("Partition", s.partition), labelled("Tier", s.tier), labelled("Kind", s.kind), labelled("Field", s.field), labelled("Trust", s.trust),
		labelled("Confidence ≥", s.minConf), labelled("Created", s.age), labelled("Tag", s.tag), container.NewVBox(widget.NewLabel(""), s.archived),
	)
	// The filters are folded away until asked for; the button says how
	// many are set.
	s.filterBox = container.NewVBox(filters)
	s.filterBox.Hide()
	s.filterButton = widget.NewButtonWithIcon("Filters", theme.MenuDropDownIcon(), func() {
		if s.filterBox.Visible() {
			s.filterBox.Hide()
		} else {
			s.filterBox.Show()
		}
	})
	add := widget.NewButtonWithIcon("New memory…", theme.ContentAddIcon(), s.add)
	bar := container.NewBorder(nil, nil, nil, container.NewHBox(s.filterButton, add), s.searchBox)
	s.empty = container.NewVBox()
	s.empty.Hide()
	s.headers = s.header()
	left := topThen(container.NewVBox(bar, s.filterBox, s.count, s.headers), container.NewStack(s.rows.view, s.empty))
	// The list takes the larger share: its text column gets what the
	// fixed columns leave.
	split := container.NewHSplit(left, s.detail.content)
	split.Offset = 0.66
	s.content = split
	s.ready = true
	return s
}

// labelled puts a caption above a filter. The caption is in the regular
// face: every text style Fyne draws costs its own parsed fonts (about 8
// MB, the bundled emoji font among them), and these filters are built
// at every unlock, so an italic caption would hold a third set from the
// start.
func labelled(name string, w fyne.CanvasObject) fyne.CanvasObject {
	return container.NewVBox(widget.NewLabel(name), w)
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
	case app.TrustHostile, app.TrustUntrusted:
		return widget.WarningImportance
	case app.TrustOperator, app.TrustVerified, app.TrustSystem:
		return widget.SuccessImportance
	}
	return widget.MediumImportance
}

// listKey takes the keys the focused list does not: Delete asks to
// forget the memory shown, as it does with nothing focused.
func (s *memoriesScreen) listKey(ev *fyne.KeyEvent) bool {
	if ev.Name != fyne.KeyDelete {
		return false
	}
	s.u.forgetShown()
	return true
}

// debounce runs the search once typing pauses.
func (s *memoriesScreen) debounce() {
	s.u.h.Touch()
	if s.stop != nil {
		s.stop()
	}
	s.stop = s.u.run.after(searchDelay, s.refresh)
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
		s.query, s.unsorted = query, rows
		if s.order.key != byDefault {
			rows = slices.Clone(rows)
			s.order.apply(rows)
		}
		s.rows.set(rows)
		s.list.UnselectAll()
		s.count.SetText(note)
		s.showEmpty(len(rows) == 0 && query == "" && s.activeFilters() == 0)
		s.filterButton.SetText(filtersLabel(s.activeFilters()))
		// A new search or filter never leaves the detail showing a
		// memory the list no longer holds (an edit of the shown one
		// keeps it).
		key := fmt.Sprintf("%s|%+v|%s", query, f, trust)
		if id := s.detail.id; key != s.shownKey && id != "" && !slices.ContainsFunc(rows, func(r row) bool { return r.ID == id }) {
			s.detail.clear()
		}
		s.shownKey = key
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
	if trust != anyChoice && trust != "" {
		f.Trusts = []app.Trust{app.Trust(trust)}
	}
	if query != "" {
		r := svc.Search(s.u.ctx, req, app.RecallInput{Query: query, Limit: searchLimit, Filters: f})
		if !r.OK() {
			return nil, r.Message
		}
		for _, res := range r.Results {
			rows = append(rows, row{ID: res.ID, Preview: preview(res.Content), Partition: res.Partition, Trust: res.Trust, Confidence: res.Confidence, Created: res.Created, Score: res.Score})
		}
		switch len(rows) {
		case 0:
			return rows, fmt.Sprintf("No memory matches %q.", query)
		case 1:
			return rows, fmt.Sprintf("1 memory matches %q", query)
		}
		if r.Total > len(r.Results) {
			return rows, fmt.Sprintf("The %d best of %d matches for %q: add words or filters to narrow it", len(rows), r.Total, query)
		}
		return rows, fmt.Sprintf("%d memories match %q", len(rows), query)
	}
	// Masked: the rows mask sensitive text, so the service leaves it out
	// and does not audit the user's own browsing.
	l := svc.List(s.u.ctx, req, app.ListInput{Filters: f, Masked: true, Max: maxListed})
	if !l.OK() {
		return nil, l.Message
	}
	for i := range l.Memories {
		m := &l.Memories[i]
		rows = append(rows, row{ID: m.ID, Preview: listPreview(m.Content), Partition: m.Partition, Trust: m.Trust, Confidence: app.CurrentConfidence(m, now), Created: m.Created})
	}
	note := count(len(rows), "memory", "memories")
	if l.Hidden > 0 {
		note += fmt.Sprintf(" · %d sensitive hidden while locked", l.Hidden)
	}
	if l.Damaged > 0 {
		note += fmt.Sprintf(" · %d damaged records left out: run 'engram doctor' and restore them from a backup", l.Damaged)
	}
	return rows, note
}

// count says n things: "1 memory", "3 memories".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// day is when t was, as a list cell: the time today, else the date.
func day(t, now time.Time) string {
	if t.IsZero() {
		return ""
	}
	t, now = t.Local(), now.Local()
	if y, m, d := t.Date(); y == now.Year() && m == now.Month() && d == now.Day() {
		return t.Format("15:04")
	}
	return t.Format("2006-01-02")
}

// listPreview is preview cut no longer than listPreviewRunes, for the
// listing, which may hold every memory: at 100,000 memories the previews
// were the largest part of the list's memory.
func listPreview(s string) string {
	p := preview(s)
	if r := []rune(p); len(r) > listPreviewRunes {
		return string(r[:listPreviewRunes]) + "…"
	}
	return p
}

const listPreviewRunes = 160

// tipText is what the pointer over a row's text shows: the row's text,
// whole up to previewRunes, then a word on where the rest is.
func tipText(preview string) string {
	if strings.HasSuffix(preview, "…") {
		return preview + " (select the row to read it all)"
	}
	return preview
}

// previewRunes is where a row's text is cut.
const previewRunes = 160

// preview is the first line of content, cut for a list row.
func preview(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > previewRunes {
		return string(r[:previewRunes]) + "…"
	}
	return s
}

// activeFilters counts the filters set.
func (s *memoriesScreen) activeFilters() int {
	n := 0
	for _, sel := range []*widget.Select{s.partition, s.tier, s.kind, s.field, s.trust, s.minConf, s.age} {
		if sel.Selected != anyChoice && sel.Selected != "" {
			n++
		}
	}
	if strings.TrimSpace(s.tag.Text) != "" {
		n++
	}
	if s.archived.Checked {
		n++
	}
	return n
}

func filtersLabel(n int) string {
	if n == 0 {
		return "Filters"
	}
	return fmt.Sprintf("Filters (%d)", n)
}

// showEmpty tells a new user, when the vault holds no memory yet, how to
// add one and how to connect an agent.
func (s *memoriesScreen) showEmpty(empty bool) {
	if !empty {
		s.empty.Hide()
		s.headers.Show()
		return
	}
	s.headers.Hide() // no columns to head
	addr := "the address in the status line"
	if a, err := s.u.h.ServerStatus(); err == nil && a != "" {
		addr = "http://" + a + "/mcp"
	}
	add := widget.NewButtonWithIcon("New memory…", theme.ContentAddIcon(), s.add)
	add.Importance = widget.HighImportance
	s.empty.Objects = []fyne.CanvasObject{
		heading("No memories yet"),
		wrapped("Add one yourself with New memory (Ctrl+N), or connect an agent and let it remember what it learns:"),
		container.NewHBox(add),
		wrapped("1. Point the agent's MCP client at " + addr + " (for Claude Code: claude mcp add --transport http engram " + addr + ")."),
		wrapped("2. The agent asks to pair: approve it in the pop-up, choosing what it may write and read."),
		wrapped("3. What it stores appears here; anything doubtful waits in Quarantine for you."),
	}
	s.empty.Show()
	s.empty.Refresh()
}

// add asks for a new memory, written by the user (operator trust); it
// is kept until the user forgets it unless the user unticks that.
func (s *memoriesScreen) add() {
	text := newShortcutEntry(s.u)
	text.MultiLine = true
	text.Wrapping = fyne.TextWrapWord
	text.SetMinRowsVisible(5)
	text.SetPlaceHolder("What should your agents remember?")
	part := newKeySelect(s.u, []string{"automatic", "public", "internal", "sensitive"}, nil)
	part.SetSelected("automatic")
	tags := newShortcutEntry(s.u)
	tags.SetPlaceHolder("comma-separated, optional")
	// The user's own memory stays until the user forgets it (semantic
	// memory: no lifetime, never archived for being unused), unless the
	// user asks for it to fade as an agent's episodic notes do.
	keep := newKeyCheck(s.u, "Keep it until I forget it (otherwise it fades like an agent's notes)", nil)
	keep.SetChecked(true)
	s.u.formDialog("New memory", "Add", []*widget.FormItem{
		widget.NewFormItem("Text", text),
		{Text: "Partition", Widget: part, HintText: "automatic: sensitive if it holds personal data, else internal"},
		widget.NewFormItem("Tags", tags),
		widget.NewFormItem("", keep),
	}, fyne.NewSize(620, 400), text, func() {
		if strings.TrimSpace(text.Text) == "" {
			return
		}
		in := app.StoreInput{Content: text.Text}
		if keep.Checked {
			in.Tier = "semantic"
		}
		if p := part.Selected; p != "automatic" {
			in.Partition = app.Partition(p)
		}
		for _, t := range strings.Split(tags.Text, ",") {
			if t = strings.TrimSpace(t); t != "" {
				in.Tags = append(in.Tags, t)
			}
		}
		h := s.u.h
		var r app.MemoryResponse
		s.u.background(func() error { r = h.Service().Store(s.u.ctx, h.Operator(), in); return nil }, func(error) {
			if !s.u.showResponse(r.Response) {
				return
			}
			s.u.setStatus("Memory added")
			s.refresh()
			if r.Memory != nil {
				s.detail.show(r.Memory.ID)
			}
		})
	})
}
