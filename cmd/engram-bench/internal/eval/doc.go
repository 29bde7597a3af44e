// Package eval measures recall on BEIR-style retrieval benchmarks (a JSON
// lines corpus and queries, a TSV of relevance judgements) through the
// real memory service: every document is written with Service.Store into
// a throwaway vault and every query answered by Service.Recall. It is the
// body of cmd/engram-bench.
package eval
