// Package benchreport measures Engram in one run and writes report.md
// with PNG charts: latency percentiles of the vault, the write path and
// the guard, the guard's quality on the development corpora, and recall
// quality per mode on SciFact. cmd/engram-bench's "report" runs it.
package benchreport
