package server

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// DefaultKeepAlive is how often an idle event stream gets an SSE comment.
// HTTP clients end a response that sends nothing for a while (Node's
// fetch after 300 s); a comment every 30 s keeps an editor's stream open,
// and a write to a client that is gone ends the stream.
const DefaultKeepAlive = 30 * time.Second

// isEventStream reports whether r opens a long-lived event stream: the
// standalone SSE stream of MCP's streamable HTTP transport, a GET that
// accepts text/event-stream.
func isEventStream(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	for _, a := range r.Header.Values("Accept") {
		for part := range strings.SplitSeq(a, ",") {
			mediaType, _, _ := strings.Cut(part, ";")
			if strings.EqualFold(strings.TrimSpace(mediaType), "text/event-stream") {
				return true
			}
		}
	}
	return false
}

// stream serves a long-lived event stream through next. The server's
// read and write timeouts bound an ordinary request from its start; an
// event stream lives as long as the client keeps it, so they are lifted
// for it. Instead each write must finish within the write timeout (a
// client that stops reading is cut), and every keepAlive of silence an
// SSE comment (": keepalive") is written, which clients ignore.
func stream(w http.ResponseWriter, r *http.Request, next http.Handler, writeTimeout, keepAlive time.Duration) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
	sw := &streamWriter{rw: w, rc: rc, timeout: writeTimeout}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(keepAlive)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-r.Context().Done():
				return
			case <-t.C:
				if !sw.keepAlive(keepAlive) {
					return
				}
			}
		}
	}()
	next.ServeHTTP(sw, r)
	close(stop)
	<-done
	sw.finish()
}

// streamWriter serialises the handler's writes and the keep-alive
// comments, and gives each write its own deadline.
type streamWriter struct {
	rw      http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration

	mu        sync.Mutex
	streaming bool      // the handler sent an event-stream response
	last      time.Time // of the last write
	finished  bool
}

func (s *streamWriter) Header() http.Header { return s.rw.Header() }

func (s *streamWriter) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return
	}
	s.streaming = code == http.StatusOK && strings.HasPrefix(s.rw.Header().Get("Content-Type"), "text/event-stream")
	s.rw.WriteHeader(code)
}

func (s *streamWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return 0, http.ErrHandlerTimeout
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	s.last = time.Now()
	return s.rw.Write(p)
}

// FlushError lets http.ResponseController flush through the wrapper.
func (s *streamWriter) FlushError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return http.ErrHandlerTimeout
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	return s.rc.Flush()
}

// Flush is http.Flusher, for handlers that assert it.
func (s *streamWriter) Flush() { _ = s.FlushError() }

// Hijack is refused: the stream is the wrapper's.
func (s *streamWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return nil, nil, http.ErrNotSupported
}

// keepAlive writes a comment when the stream has been silent for idle; it
// returns false when the stream is not writable any more.
func (s *streamWriter) keepAlive(idle time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.finished {
		return false
	}
	if !s.streaming || time.Since(s.last) < idle {
		return true
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	s.last = time.Now()
	if _, err := s.rw.Write([]byte(": keepalive\n\n")); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}

// finish stops every later write: the handler has returned.
func (s *streamWriter) finish() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.finished = true
	// The connection may serve further requests: give it back the
	// ordinary write timeout for the rest of this response.
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
}
