// Package embed turns memories and queries into vectors for semantic
// recall, locally and without network access.
//
// The default model is Universal Sentence Encoder Lite, run in pure Go by
// [USE]: the SentencePiece tokenizer reproduces the TF.js reference id for
// id, and the forward pass (two transformer layers, mean pooling, a tanh
// projection, L2 normalisation) matches the TF.js vectors to a cosine of at
// least 0.9999. The weights are not part of the source tree:
// fetch-model.sh downloads and verifies them, and `make model` copies them
// into model/ (git-ignored), which a build with the tag engram_model
// embeds. [LoadBuiltin] is how Engram loads the model at start: from a
// directory when one is named, else the embedded copy, else
// [DefaultModelDir], each file checked against its pinned SHA-256 first;
// nothing is ever downloaded at run time.
//
// [OpenAI] is the alternative: any OpenAI-compatible /v1/embeddings server
// on the loopback interface (Ollama, LM Studio, llama.cpp's server).
//
// Inference is plain Go apart from one optional piece: on amd64 with
// AVX2 and FMA, the matrix products use a small assembly micro-kernel
// (kernel_amd64.s); elsewhere, or with the build tag purego, a portable Go
// kernel computes the same products. Weights are packed once at load time
// into 16-column panels, in half precision where the CPU converts it
// (F16C; about 10 MB in memory, else 20 MB): a short query's time goes
// to reading the weights, not to arithmetic. One short query takes about
// 2 ms; see the benchmarks in bench_test.go.
// [Unloading] lets go of a model while nothing is embedded and loads it
// again when work resumes, as the desktop app does with the built-in one.
//
// Both implement [Embedder]. Vectors are comparable only between equal
// [Embedder.Name] values; compare them with [Cosine] (or a dot product,
// since they are normalised).
package embed
