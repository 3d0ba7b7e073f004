// Package ssetest is a local HTTP server that answers each request with the
// next scripted response: an error status, an event stream written event by
// event, a stream whose connection is cut, or one that hangs until the
// client gives up. Provider tests use it to speak each API's wire format.
package ssetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// Response is one scripted answer.
type Response struct {
	// Status defaults to 200.
	Status int
	// Header is added to the response.
	Header map[string]string
	// Body is written as it is (error answers).
	Body string
	// Events are written one by one, each flushed (SSE frames, "\n\n"-terminated).
	Events []string
	// Cut closes the connection after Events without ending the chunked body.
	Cut bool
	// Hang keeps the response open after Events until the client goes away.
	Hang bool
}

// Request is what the server received.
type Request struct {
	Path   string
	Header http.Header
	Body   []byte
}

// Server answers requests with its responses in turn (the last one repeats).
type Server struct {
	*httptest.Server
	mu        sync.Mutex
	responses []Response
	requests  []Request
}

// New starts a server, closed when the test ends.
func New(t *testing.T, responses ...Response) *Server {
	t.Helper()
	s := &Server{responses: responses}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, Request{Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
	resp := s.responses[min(n, len(s.responses)-1)]
	s.mu.Unlock()

	if resp.Cut {
		cut(w, resp)
		return
	}
	for k, v := range resp.Header {
		w.Header().Set(k, v)
	}
	status := resp.Status
	if status == 0 {
		status = http.StatusOK
	}
	if resp.Events != nil && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(status)
	if resp.Body != "" {
		_, _ = io.WriteString(w, resp.Body)
	}
	f, _ := w.(http.Flusher)
	for _, e := range resp.Events {
		_, _ = io.WriteString(w, e)
		if f != nil {
			f.Flush()
		}
	}
	if resp.Hang {
		select {
		case <-r.Context().Done():
		case <-time.After(10 * time.Second):
		}
	}
}

// cut writes a chunked event stream by hand and closes the connection
// before the terminating chunk, as a dropped connection looks to a client.
func cut(w http.ResponseWriter, resp Response) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	writeCut(buf.Writer, resp.Events)
}

func writeCut(bw *bufio.Writer, events []string) {
	fmt.Fprint(bw, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
	for _, e := range events {
		fmt.Fprintf(bw, "%x\r\n%s\r\n", len(e), e)
	}
	_ = bw.Flush()
}

// Data frames a JSON payload as an SSE data event.
func Data(payload string) string { return "data: " + payload + "\n\n" }

// Event frames a named SSE event.
func Event(name, payload string) string { return "event: " + name + "\ndata: " + payload + "\n\n" }

// Sleeper records the waits asked of it and returns at once (or with the
// context's error when it is done).
type Sleeper struct {
	mu     sync.Mutex
	Delays []time.Duration
}

// Sleep records d.
func (s *Sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.Delays = append(s.Delays, d)
	s.mu.Unlock()
	return ctx.Err()
}

// Waits returns the recorded waits.
func (s *Sleeper) Waits() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.Delays...)
}
