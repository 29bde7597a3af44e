package benchreport

import (
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// bar is one horizontal bar of a chart.
type bar struct {
	label string
	value float64
	text  string // printed at the end of the bar
	fill  color.RGBA
}

var (
	blue   = color.RGBA{0x3b, 0x6e, 0xc9, 0xff}
	orange = color.RGBA{0xe0, 0x8a, 0x2c, 0xff}
	ink    = color.RGBA{0x22, 0x22, 0x22, 0xff}
	grid   = color.RGBA{0xdd, 0xdd, 0xdd, 0xff}
)

const (
	rowHeight = 22
	labelW    = 330
	plotW     = 460
	pad       = 16
)

// drawBars renders a titled horizontal bar chart scaled to max as PNG.
func drawBars(path, title string, bars []bar, max float64, legend []bar) error {
	h := pad*3 + 20 + rowHeight*len(bars) + 20*len(legend)
	w := labelW + plotW + 110
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	text := func(x, y int, s string, c color.Color) {
		d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
		d.DrawString(s)
	}
	text(pad, pad+10, title, ink)
	top := pad*2 + 10
	for i := 0; i <= 4; i++ { // grid lines at quarters
		x := labelW + plotW*i/4
		draw.Draw(img, image.Rect(x, top, x+1, top+rowHeight*len(bars)), image.NewUniform(grid), image.Point{}, draw.Src)
	}
	for i, b := range bars {
		y := top + i*rowHeight
		text(pad, y+15, b.label, ink)
		bw := 0
		if max > 0 {
			bw = int(float64(plotW) * b.value / max)
		}
		draw.Draw(img, image.Rect(labelW, y+4, labelW+bw, y+rowHeight-4), image.NewUniform(b.fill), image.Point{}, draw.Src)
		text(labelW+bw+6, y+15, b.text, ink)
	}
	y := top + rowHeight*len(bars) + pad
	for _, l := range legend {
		draw.Draw(img, image.Rect(labelW, y, labelW+12, y+12), image.NewUniform(l.fill), image.Point{}, draw.Src)
		text(labelW+18, y+11, l.label, ink)
		y += 20
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// latencyChart draws p50 and p99 of each operation, in milliseconds.
func latencyChart(path string, lats []latency) error {
	var bars []bar
	max := 0.0
	for _, l := range lats {
		p50, p99 := float64(l.P50)/float64(time.Millisecond), float64(l.P99)/float64(time.Millisecond)
		bars = append(bars, bar{l.Name, p50, fmt.Sprintf("%.2f ms", p50), blue}, bar{"", p99, fmt.Sprintf("%.2f ms", p99), orange})
		max = maxf(max, p99)
	}
	return drawBars(path, "Latency (milliseconds)", bars, max, []bar{{label: "p50", fill: blue}, {label: "p99", fill: orange}})
}

// qualityChart draws figures in [0, 1] as percentages.
func qualityChart(path, title string, qs []quality) error {
	var bars []bar
	for _, q := range qs {
		bars = append(bars, bar{q.Name, q.Value, fmt.Sprintf("%.1f%%", 100*q.Value), blue})
	}
	return drawBars(path, title, bars, 1, nil)
}

func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}
