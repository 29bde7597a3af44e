// Package server is Engram's loopback API: JSON over HTTP on 127.0.0.1 and
// a 0600 Unix socket, for local agents. Every request is checked in this
// order: the Host must be a loopback name (against DNS rebinding), a
// browser's Origin must be the server itself, the body is bounded, the
// bearer token names the agent (never the body), and each agent is
// rate-limited. Handlers call the memory service and map its statuses to
// HTTP codes in one place (httpStatus). The local user's engram commands
// reach the process through the operator endpoints (admin token); POST
// /v1/admin/run runs any of them here, streaming the terminal (run.go).
package server
