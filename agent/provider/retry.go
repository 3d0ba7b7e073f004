package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Options configure a provider implementation. The zero value is ready to use.
type Options struct {
	// HTTPClient sends requests; nil means a client without an overall
	// timeout (responses stream for minutes).
	HTTPClient *http.Client
	// Retry bounds retries of rate-limited and failed requests.
	Retry RetryPolicy
	// Sleep waits d or until ctx is done (then it returns ctx.Err()); nil
	// means a real timer. Tests inject one that returns at once.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// RetryPolicy says when and how long to wait before trying again. Requests
// are retried only before any content was streamed: on HTTP 429 (after the
// server's retry-after, when it sends one), on 5xx and on connection
// failures other than a refused connection.
type RetryPolicy struct {
	// MaxRetries is the number of retries after the first attempt; 0 means 3
	// and a negative value disables retries.
	MaxRetries int
	// Backoff is the wait before retry n (0-based) when the server gives no
	// retry-after; nil means 1 s, 2 s, 4 s, ...
	Backoff func(n int) time.Duration
	// MaxRetryAfter is the longest retry-after honoured; a longer one fails
	// at once. 0 means 2 minutes.
	MaxRetryAfter time.Duration
}

func (o Options) client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return http.DefaultClient
}

// Clock returns o.Now or time.Now.
func (o Options) Clock() func() time.Time {
	if o.Now != nil {
		return o.Now
	}
	return time.Now
}

// Wait sleeps d through o.Sleep, or a timer.
func (o Options) Wait(ctx context.Context, d time.Duration) error {
	if o.Sleep != nil {
		return o.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (p RetryPolicy) max() int {
	switch {
	case p.MaxRetries < 0:
		return 0
	case p.MaxRetries == 0:
		return 3
	}
	return p.MaxRetries
}

func (p RetryPolicy) backoff(n int) time.Duration {
	if p.Backoff != nil {
		return p.Backoff(n)
	}
	return time.Second << n
}

func (p RetryPolicy) maxRetryAfter() time.Duration {
	if p.MaxRetryAfter > 0 {
		return p.MaxRetryAfter
	}
	return 2 * time.Minute
}

// HTTPError is a non-2xx answer of a provider API.
type HTTPError struct {
	// Provider is the provider name, KeyEnv the variable holding its key.
	Provider, KeyEnv string
	// Status is the HTTP status code.
	Status int
	// Message is the server's error message (or the start of its body).
	Message string
	// RetryAfter is the server's retry-after; HasRetryAfter reports whether it sent one.
	RetryAfter    time.Duration
	HasRetryAfter bool
}

func (e *HTTPError) Error() string {
	var s string
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		check := e.KeyEnv
		if check == "" {
			check = "the API key configured for " + e.Provider
		}
		s = fmt.Sprintf("authentication failed for %s (HTTP %d): check %s", e.Provider, e.Status, check)
	case http.StatusTooManyRequests:
		s = fmt.Sprintf("%s: rate limited (HTTP 429)", e.Provider)
	default:
		s = fmt.Sprintf("%s: HTTP %d", e.Provider, e.Status)
		if t := http.StatusText(e.Status); t != "" {
			s += " " + t
		}
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.HasRetryAfter {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter.Round(time.Second))
	}
	return s
}

// Retryable reports a status worth trying again: 408, 409, 429 and 5xx.
func (e *HTTPError) Retryable() bool {
	return e.Status == http.StatusRequestTimeout || e.Status == http.StatusConflict ||
		e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// RetryableError marks a failure that may be retried when no content has
// arrived yet (e.g. an "overloaded" error event at the start of a stream).
type RetryableError struct{ Err error }

func (e *RetryableError) Error() string { return e.Err.Error() }
func (e *RetryableError) Unwrap() error { return e.Err }

// Post sends a JSON body and returns the response when its status is 2xx.
// Any other status is read and returned as an *HTTPError; a transport
// failure is wrapped with the provider name.
func Post(ctx context.Context, o Options, m Model, url string, header http.Header, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", m.Provider, err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	resp, err := o.client().Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		err = fmt.Errorf("%s: request to %s failed: %w", m.Provider, url, err)
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, err
		}
		return nil, &RetryableError{err}
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	he := &HTTPError{Provider: m.Provider, KeyEnv: m.APIKeyEnv, Status: resp.StatusCode, Message: ErrorMessage(raw)}
	he.RetryAfter, he.HasRetryAfter = RetryAfter(resp.Header, o.Clock()())
	return nil, he
}

// ErrorMessage extracts the message of an error body ({"error":{"message"}},
// {"error":"..."}, {"message"}, or the text itself, shortened).
func ErrorMessage(raw []byte) string {
	var w struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  string          `json:"detail"`
	}
	if json.Unmarshal(raw, &w) == nil {
		var inner struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		}
		var s string
		switch {
		case json.Unmarshal(w.Error, &inner) == nil && inner.Message != "":
			return inner.Message
		case json.Unmarshal(w.Error, &s) == nil && s != "":
			return s
		case w.Message != "":
			return w.Message
		case w.Detail != "":
			return w.Detail
		}
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// RetryAfter reads retry-after-ms or retry-after (seconds or an HTTP date).
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
		return time.Duration(s * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// Retry runs attempt until it succeeds, fails for good, or retries run out.
// A failure is retried only while b has no content, for an *HTTPError that
// is Retryable or a *RetryableError; each retry is reported with
// EventRetry, b is reset and the wait goes through o.Wait.
func Retry(ctx context.Context, o Options, b *Builder, attempt func(context.Context) error) error {
	maxN := o.Retry.max()
	for n := 0; ; n++ {
		err := attempt(ctx)
		if err == nil || ctx.Err() != nil {
			return err
		}
		delay, ok := retryDelay(o.Retry, err, n)
		if !ok || b.HasContent() {
			return err
		}
		if n >= maxN {
			if n == 0 {
				return err
			}
			return fmt.Errorf("%w (gave up after %d retries)", err, n)
		}
		b.Reset()
		b.Retry(n+1, delay, err)
		if werr := o.Wait(ctx, delay); werr != nil {
			return werr
		}
	}
}

func retryDelay(p RetryPolicy, err error, n int) (time.Duration, bool) {
	if he, ok := errors.AsType[*HTTPError](err); ok {
		if !he.Retryable() {
			return 0, false
		}
		if he.HasRetryAfter {
			if he.RetryAfter > p.maxRetryAfter() {
				return 0, false
			}
			return he.RetryAfter, true
		}
		return p.backoff(n), true
	}
	if _, ok := errors.AsType[*RetryableError](err); ok {
		return p.backoff(n), true
	}
	return 0, false
}
