package provider

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// SSEEvent is one server-sent event: its event name ("" when none was
// given) and its data lines joined with "\n".
type SSEEvent struct {
	Event string
	Data  string
}

// maxSSELine bounds one line of a stream (a single delta is far smaller).
const maxSSELine = 16 << 20

// ErrStreamCut reports a stream that ended in the middle of an event or whose
// connection was lost.
var ErrStreamCut = errors.New("connection lost mid-stream")

// ReadSSE calls fn for each event of an event stream until the stream ends,
// fn returns an error (returned as is) or reading fails. A clean end returns
// nil; an event left unterminated by the end of the stream, or a broken
// connection, returns an error wrapping ErrStreamCut.
func ReadSSE(r io.Reader, fn func(SSEEvent) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var ev SSEEvent
	var data strings.Builder
	hasData := false
	for {
		line, err := readLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) && line == "" && !hasData {
				return nil
			}
			if errors.Is(err, io.EOF) {
				return ErrStreamCut
			}
			return &cutError{err}
		}
		switch {
		case line == "":
			if hasData {
				ev.Data = data.String()
				if err := fn(ev); err != nil {
					return err
				}
			}
			ev, hasData = SSEEvent{}, false
			data.Reset()
		case line[0] == ':':
			// comment (keep-alive)
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				ev.Event = value
			case "data":
				if hasData {
					data.WriteByte('\n')
				}
				data.WriteString(value)
				hasData = true
			}
		}
	}
}

// readLine reads one line without its end (\n, \r\n). At the end of the
// stream it returns the unterminated rest with io.EOF.
func readLine(br *bufio.Reader) (string, error) {
	var sb strings.Builder
	for {
		chunk, isPrefix, err := br.ReadLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return sb.String(), io.EOF
			}
			return sb.String(), err
		}
		sb.Write(chunk)
		if sb.Len() > maxSSELine {
			return "", errors.New("stream line too long")
		}
		if !isPrefix {
			return sb.String(), nil
		}
	}
}

type cutError struct{ err error }

func (e *cutError) Error() string { return ErrStreamCut.Error() + ": " + e.err.Error() }
func (e *cutError) Unwrap() []error {
	return []error{ErrStreamCut, e.err}
}
