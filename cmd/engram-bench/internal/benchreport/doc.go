// Package benchreport measures Engram in one run and writes report.md
// with PNG charts: latency percentiles of the vault, the write path and
// the guard, the guard's quality on the development corpora, and recall
// quality per mode on SciFact. Where a peer exists it is measured beside
// Engram in the same run: `engram mcp` against the reference MCP memory
// server (mcppeer), the guard against gitleaks on the secrets corpus, and
// plain BM25 against hybrid recall. cmd/engram-bench's "report" runs it.
package benchreport
