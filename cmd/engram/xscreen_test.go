package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The desktop end-to-end test waits for what the screen shows, never for
// a fixed time: Xvfb keeps its screen in a file (-fbdir), which the test
// reads directly (a few milliseconds a read, where ImageMagick's import
// takes most of a second). A step sends its input and then waits until
// the window shows the effect (a change, or a condition such as "the
// list has three rows") and the screen holds still; each screenshot is
// such a still frame.

// framebuffer is where Xvfb keeps the screen of the desktop that
// startDesktop(t, ctx, tmp, ...) started.
func framebuffer(tmp string) string { return filepath.Join(tmp, "Xvfb_screen0") }

const (
	// pollEvery is how often a wait reads the screen.
	pollEvery = 50 * time.Millisecond
	// quietMin is how long the screen must hold still before a step
	// counts as drawn; quietMax caps the longer quiet asked of a slow step.
	quietMin, quietMax = 300 * time.Millisecond, time.Second
	// awaitLimit bounds one step's wait (the test's context bounds all).
	awaitLimit = 30 * time.Second
	// statusHeight is the height of the status line along the top of the
	// main window: its messages change on their own (they go back to
	// where agents connect 15 s after they are shown), so a change there
	// is never a step's effect.
	statusHeight = 42
)

// frame is the screen at one moment: 4 bytes a pixel, blue, green, red
// and one unused (Xvfb's 24-bit screen in its own byte order).
type frame struct {
	w, h, stride int
	pix          []byte
}

// fbLayout is where the pixels are in Xvfb's framebuffer file, an XWD
// image: a header of big-endian 32-bit fields, the window name, a colour
// map, then the pixels.
type fbLayout struct {
	off, w, h, stride int
}

func readLayout(path string) (fbLayout, error) {
	f, err := os.Open(path)
	if err != nil {
		return fbLayout{}, err
	}
	defer f.Close()
	var head [100]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return fbLayout{}, fmt.Errorf("read the framebuffer's header: %w", err)
	}
	field := func(i int) int { return int(binary.BigEndian.Uint32(head[4*i:])) }
	// Fields: 0 header size, 2 format (2: ZPixmap), 4 width, 5 height,
	// 7 byte order (0: least significant first), 11 bits per pixel,
	// 12 bytes per line, 14-16 the colour masks, 19 colour map entries.
	if field(2) != 2 || field(7) != 0 || field(11) != 32 || field(14) != 0xff0000 || field(15) != 0xff00 || field(16) != 0xff {
		return fbLayout{}, fmt.Errorf("the framebuffer %s is not 32-bit BGRX: header %v", path, head)
	}
	return fbLayout{off: field(0) + 12*field(19), w: field(4), h: field(5), stride: field(12)}, nil
}

// grab reads the screen now.
func (x *xsession) grab() frame {
	x.t.Helper()
	if x.fbFile == nil {
		l, err := readLayout(x.fb)
		if err != nil {
			x.t.Fatal(err)
		}
		if x.fbFile, err = os.Open(x.fb); err != nil {
			x.t.Fatal(err)
		}
		x.t.Cleanup(func() { x.fbFile.Close() })
		x.layout = l
	}
	l := x.layout
	f := frame{w: l.w, h: l.h, stride: l.stride, pix: make([]byte, l.stride*l.h)}
	if _, err := x.fbFile.ReadAt(f.pix, int64(l.off)); err != nil {
		x.t.Fatalf("read the screen: %v", err)
	}
	return f
}

// clip is r within the frame.
func (f frame) clip(r rect) rect {
	x0, y0 := max(r.x, 0), max(r.y, 0)
	x1, y1 := min(r.x+r.w, f.w), min(r.y+r.h, f.h)
	return rect{x0, y0, max(x1-x0, 0), max(y1-y0, 0)}
}

// diff is the smallest rectangle holding every pixel of area that differs
// between f and g; ok is false when none does.
func (f frame) diff(g frame, area rect) (d rect, ok bool) {
	a := f.clip(area)
	x0, y0, x1, y1 := a.x+a.w, a.y+a.h, -1, -1
	for y := a.y; y < a.y+a.h; y++ {
		start := y*f.stride + 4*a.x
		rf, rg := f.pix[start:start+4*a.w], g.pix[start:start+4*a.w]
		if bytes.Equal(rf, rg) {
			continue
		}
		for i := 0; i < len(rf); i += 4 {
			if rf[i] != rg[i] || rf[i+1] != rg[i+1] || rf[i+2] != rg[i+2] {
				px := a.x + i/4
				x0, x1 = min(x0, px), max(x1, px)
				y0, y1 = min(y0, y), max(y1, y)
			}
		}
	}
	if x1 < 0 {
		return rect{}, false
	}
	return rect{x0, y0, x1 - x0 + 1, y1 - y0 + 1}, true
}

// moved reports whether g differs from f in area by more than a text
// cursor's blink (Fyne fades the cursor of the focused field in and out
// twice a second): a bar at most 4 pixels wide and 40 high.
func (f frame) moved(g frame, area rect) (rect, bool) {
	d, ok := f.diff(g, area)
	return d, ok && (d.w > 4 || d.h > 40)
}

// flat reports whether r is empty: one colour, give or take the soft
// shadow a dialog casts (text differs from its background by far more).
func (f frame) flat(r rect) bool {
	a := f.clip(r)
	first := f.pix[a.y*f.stride+4*a.x:][:3]
	near := func(p, q byte) bool { return max(p, q)-min(p, q) <= 24 }
	for y := a.y; y < a.y+a.h; y++ {
		row := f.pix[y*f.stride+4*a.x:][:4*a.w]
		for i := 0; i < len(row); i += 4 {
			if !near(row[i], first[0]) || !near(row[i+1], first[1]) || !near(row[i+2], first[2]) {
				return false
			}
		}
	}
	return true
}

// red reports whether r shows red text (the error colour of Fyne's dark
// theme): more than 0.2% of its pixels are strongly red.
func (f frame) red(r rect) bool {
	return f.share(r, func(r, g, b uint8) bool { return r > 178 && g < 115 && b < 115 }) > 0.002
}

// green reports whether r shows green text (the success colour of Fyne's
// dark theme): more than 0.2% of its pixels are strongly green.
func (f frame) green(r rect) bool {
	return f.share(r, func(r, g, b uint8) bool { return g > 178 && r < 140 && b < 140 }) > 0.002
}

// share is the share of r's pixels for which is holds.
func (f frame) share(r rect, is func(r, g, b uint8) bool) float64 {
	a := f.clip(r)
	if a.w*a.h == 0 {
		return 0
	}
	n := 0
	for y := a.y; y < a.y+a.h; y++ {
		row := f.pix[y*f.stride+4*a.x:][:4*a.w]
		for i := 0; i < len(row); i += 4 {
			if is(row[i+2], row[i+1], row[i]) {
				n++
			}
		}
	}
	return float64(n) / float64(a.w*a.h)
}

// save writes f as a PNG file.
func (f frame) save(path string) error {
	img := image.NewRGBA(image.Rect(0, 0, f.w, f.h))
	for y := range f.h {
		src, dst := f.pix[y*f.stride:][:4*f.w], img.Pix[y*img.Stride:][:4*f.w]
		for i := 0; i < len(src); i += 4 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = src[i+2], src[i+1], src[i], 0xff
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// inWindow is r (in the window's coordinates) on the screen.
func (x *xsession) inWindow(r rect) rect { return rect{x.win.x + r.x, x.win.y + r.y, r.w, r.h} }

// content is the window below its status line.
func (x *xsession) content() rect {
	return rect{x.win.x, x.win.y + statusHeight, x.win.w, x.win.h - statusHeight}
}

// A cond is what a step waits for: it is given the screen before the
// step's input and the screen now.
type cond struct {
	what string
	ok   func(before, now frame) bool
}

// pollCtx is the context that bounds the session's waits.
func (x *xsession) pollCtx() context.Context {
	if x.ctx != nil {
		return x.ctx
	}
	return x.t.Context()
}

// changed: the screen changed in r (window coordinates) beyond a text
// cursor's blink.
func (x *xsession) changed(r rect) cond {
	return cond{fmt.Sprintf("a change in %v", r), func(before, now frame) bool {
		_, ok := before.moved(now, x.inWindow(r))
		return ok
	}}
}

// changedOnScreen: the screen changed in r (screen coordinates) beyond a
// text cursor's blink.
func (x *xsession) changedOnScreen(r rect) cond {
	return cond{fmt.Sprintf("a change on the screen in %v", r), func(before, now frame) bool {
		_, ok := before.moved(now, r)
		return ok
	}}
}

// rows: the list whose first row is centred on first shows exactly n
// rows (rows 0 to n-1 hold text, row n is empty). It looks at the rows'
// first column (a memory's partition, an item's risk, an agent's
// status), which a dialog in the middle of the window leaves in view.
func (x *xsession) rows(first point, n int) cond {
	row := func(i int) rect { return x.inWindow(rect{8, first.y + i*rowHeight - 12, 112, 24}) }
	return cond{fmt.Sprintf("%d rows in the list at %v", n, first), func(_, now frame) bool {
		for i := range n {
			if now.flat(row(i)) {
				return false
			}
		}
		return now.flat(row(n))
	}}
}

// redIn: red text in r (window coordinates).
func (x *xsession) redIn(r rect) cond {
	return cond{fmt.Sprintf("red text in %v", r), func(_, now frame) bool { return now.red(x.inWindow(r)) }}
}

// greenIn: green text in r (window coordinates).
func (x *xsession) greenIn(r rect) cond {
	return cond{fmt.Sprintf("green text in %v", r), func(_, now frame) bool { return now.green(x.inWindow(r)) }}
}

// dim: r (window coordinates) holds no bright text: what it shows is
// covered by a dialog, or is not there (text on top is near white).
func (x *xsession) dim(r rect) cond {
	return cond{fmt.Sprintf("no bright text in %v", r), func(_, now frame) bool {
		return now.share(x.inWindow(r), func(r, g, b uint8) bool { return r > 220 && g > 220 && b > 220 }) == 0
	}}
}

// filled: r (window coordinates) is not one colour.
func (x *xsession) filled(r rect) cond {
	return cond{fmt.Sprintf("something drawn in %v", r), func(_, now frame) bool { return !now.flat(x.inWindow(r)) }}
}

// rowHeight is the height of a row in the app's lists.
const rowHeight = 39

// await runs act (input to the app, or a request to it) and waits until
// the screen shows its effect: every one of conds holds (by default, the
// window changed below its status line), and then the screen holds still.
// It returns the still screen, which the next shot takes.
//
// The screen must hold still for quietMin, or for half the time the
// effect took to show when that is longer (up to quietMax): on a loaded
// machine, work that follows an effect (a list reloading after its
// dialog closed) is slower too.
func (x *xsession) await(what string, act func(), conds ...cond) frame {
	x.t.Helper()
	if len(conds) == 0 {
		conds = []cond{{"a change in the window", func(before, now frame) bool {
			_, ok := before.moved(now, x.content())
			return ok
		}}}
	}
	before := x.grab()
	x.hasFrom = false
	started := time.Now()
	act()
	if x.hasFrom {
		before, x.hasFrom = x.from, false
	}
	x.poll(what, awaitLimit, func() (bool, string) {
		now := x.grab()
		for _, c := range conds {
			if !c.ok(before, now) {
				return false, c.what
			}
		}
		return true, ""
	})
	shown := time.Since(started)
	quiet := min(max(quietMin, shown/2), quietMax)
	f := x.settle(what, quiet)
	x.steps = append(x.steps, step{what, shown, time.Since(started)})
	return f
}

// A step is how long one await took: until its effect showed, and until
// the screen then held still.
type step struct {
	what        string
	shown, took time.Duration
}

// logSteps logs how long the steps took: each of them when the test
// failed, else the sum and the slowest.
func (x *xsession) logSteps() {
	var all, slowest step
	var each strings.Builder
	for _, s := range x.steps {
		all.took += s.took
		if s.took > slowest.took {
			slowest = s
		}
		fmt.Fprintf(&each, "\n\t%s: shown after %v, still after %v", s.what, s.shown.Round(time.Millisecond), s.took.Round(time.Millisecond))
	}
	if x.t.Failed() {
		x.t.Logf("the steps:%s", each.String())
		return
	}
	x.t.Logf("%d steps waited %v in all for the screen; the slowest, %v: %s", len(x.steps), all.took.Round(time.Millisecond), slowest.took.Round(time.Millisecond), slowest.what)
}

// markFrom waits until the screen holds still and marks it as the one
// the running step's effect is measured from: what came before (the
// pointer's arrival) is not the effect.
func (x *xsession) markFrom(what string) {
	x.t.Helper()
	x.from = x.settle(what, quietMin)
	x.hasFrom = true
}

// settle waits until the screen holds still for quiet (a text cursor's
// blink aside) and returns it.
func (x *xsession) settle(what string, quiet time.Duration) frame {
	x.t.Helper()
	screen := rect{0, 0, 1 << 16, 1 << 16}
	last := x.grab()
	since := time.Now()
	var still frame
	x.poll(what+" (the screen to hold still)", awaitLimit, func() (bool, string) {
		now := x.grab()
		if d, moved := last.moved(now, screen); moved {
			last, since = now, time.Now()
			return false, fmt.Sprintf("it still changes in %v", d)
		}
		if time.Since(since) < quiet {
			return false, "it held still too briefly"
		}
		still = now
		return true, ""
	})
	x.still, x.isStill = still, true
	return still
}

// poll calls ok every pollEvery until it holds; at limit or the end of
// the test's context the test fails, saying what it waited for and the
// last reason ok gave.
func (x *xsession) poll(what string, limit time.Duration, ok func() (bool, string)) {
	x.t.Helper()
	started := time.Now()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		done, why := ok()
		if done {
			return
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			x.failShot()
			x.t.Fatalf("waiting for %s: not there after %v (%s)", what, limit, why)
		case <-x.pollCtx().Done():
			x.t.Fatalf("waiting for %s: the test's time ran out after %v (%s)", what, time.Since(started).Round(time.Millisecond), why)
		}
	}
}

// failShot keeps the screen a failed wait left, beside the screenshots.
func (x *xsession) failShot() {
	if x.shots != "" {
		x.grab().save(filepath.Join(x.shots, "failed-wait.png"))
	}
}
