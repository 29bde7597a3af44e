// Package mcppeer measures Engram's MCP stdio bridge (`engram mcp`) side
// by side with the reference MCP memory server from npm, with the same Go
// SDK client and the same calls: stores and searches timed one by one,
// then several clients storing at once, after which it counts which
// acknowledged writes each server kept. The report and BenchmarkPeer
// (peer_test.go) run it.
package mcppeer
