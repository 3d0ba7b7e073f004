package kitty

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// ProtocolVersion is the client version every command carries: kitty 0.26,
// the oldest supported. kitty refuses a client whose major.minor is newer
// than its own, and current kitty's own client sends 0.26.0 too.
var ProtocolVersion = [3]int{0, 26, 0}

// DefaultTimeout bounds a call made without a deadline of its own: a hung
// kitty must not hang the supervisor.
const DefaultTimeout = 5 * time.Second

// maxResponse bounds a reply: ls of a few hundred windows is well under a
// megabyte.
const maxResponse = 64 << 20

// Framing of a command and of its reply.
const (
	framePrefix = "\x1bP@kitty-cmd"
	frameSuffix = "\x1b\\"
)

// ParseAddress splits a kitty socket address, as KITTY_LISTEN_ON and
// --listen-on spell it, into a network and an address for net.Dial:
// "unix:/path", "unix:@abstract" (Linux) or "tcp:host:port". A bare path is
// taken as a unix socket.
func ParseAddress(addr string) (network, address string, err error) {
	switch {
	case strings.HasPrefix(addr, "unix:"):
		network, address = "unix", addr[len("unix:"):]
	case strings.HasPrefix(addr, "tcp:"):
		network, address = "tcp", addr[len("tcp:"):]
	case strings.HasPrefix(addr, "/"):
		network, address = "unix", addr
	default:
		return "", "", fmt.Errorf("kitty socket address %q: want unix:<path>, unix:@<name> or tcp:<host>:<port>", addr)
	}
	if address == "" || address == "@" {
		return "", "", fmt.Errorf("kitty socket address %q: empty", addr)
	}
	return network, address, nil
}

// request is one command as kitty reads it.
type request struct {
	Cmd     string `json:"cmd"`
	Version [3]int `json:"version"`
	Payload any    `json:"payload,omitempty"`
}

// response is kitty's reply.
type response struct {
	OK        bool            `json:"ok"`
	Data      json.RawMessage `json:"data"`
	Error     string          `json:"error"`
	Traceback string          `json:"tb"`
}

// encodeFrame serialises one command. JSON escapes every control character,
// so no ESC reaches the frame unescaped; non-ASCII is escaped as well, as
// kitty's own clients do, so nothing in the frame can look like a C1 string
// terminator to kitty's escape-code parser.
//
// No command asks for no response ("no_response"): kitty then closes the
// connection unanswered even on failure, and a missing window would go
// unnoticed.
func encodeFrame(cmd string, payload any) ([]byte, error) {
	js, err := json.Marshal(request{Cmd: cmd, Version: ProtocolVersion, Payload: payload})
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(framePrefix)+len(js)+len(frameSuffix)+16)
	out = append(out, framePrefix...)
	out = appendASCIIJSON(out, js)
	return append(out, frameSuffix...), nil
}

// appendASCIIJSON appends js with every non-ASCII character written as a
// \u escape. It relies on json.Marshal's output: valid UTF-8, with
// non-ASCII only inside strings, where \u escapes mean the same.
func appendASCIIJSON(dst, js []byte) []byte {
	const hex = "0123456789abcdef"
	for len(js) > 0 {
		if js[0] < utf8.RuneSelf {
			dst = append(dst, js[0])
			js = js[1:]
			continue
		}
		r, n := utf8.DecodeRune(js)
		js = js[n:]
		units := []uint16{uint16(r)}
		if r > 0xffff {
			r1, r2 := utf16.EncodeRune(r)
			units = []uint16{uint16(r1), uint16(r2)}
		}
		for _, u := range units {
			dst = append(dst, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
		}
	}
	return dst
}

// decodeFrame finds the reply in what kitty sent; ok is false when no
// complete frame has arrived.
func decodeFrame(buf []byte) (body []byte, ok bool) {
	i := bytes.Index(buf, []byte(framePrefix))
	if i < 0 {
		return nil, false
	}
	rest := buf[i+len(framePrefix):]
	j := bytes.Index(rest, []byte(frameSuffix))
	if j < 0 {
		return nil, false
	}
	return rest[:j], true
}

// roundTrip sends frames over one new connection and reads the first reply.
// It half-closes the connection after writing: kitty 0.26 handles a command
// only once the client's side is closed (or after about 300 ms). A
// connection closed without a reply gives ErrNoResponse.
func roundTrip(ctx context.Context, network, address string, frames ...[]byte) (*response, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, network, address)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("%w: %w", ErrRemoteControlDisabled, err)
		}
		return nil, err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// A cancelled context ends a blocked read or write at once.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	for _, f := range frames {
		if _, err := conn.Write(f); err != nil {
			return nil, ctxErr(ctx, err)
		}
	}
	if hc, ok := conn.(interface{ CloseWrite() error }); ok {
		if err := hc.CloseWrite(); err != nil {
			return nil, ctxErr(ctx, err)
		}
	}

	buf := make([]byte, 0, 16<<10)
	for {
		if len(buf) == cap(buf) {
			if len(buf) >= maxResponse {
				return nil, fmt.Errorf("reply larger than %d bytes", maxResponse)
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := conn.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if body, ok := decodeFrame(buf); ok {
			var r response
			if err := json.Unmarshal(body, &r); err != nil {
				return nil, fmt.Errorf("malformed reply: %w", err)
			}
			return &r, nil
		}
		if errors.Is(err, io.EOF) {
			if len(bytes.TrimSpace(buf)) > 0 {
				return nil, fmt.Errorf("%w: %d bytes without a complete reply", ErrNoResponse, len(buf))
			}
			return nil, ErrNoResponse
		}
		if err != nil {
			return nil, ctxErr(ctx, err)
		}
	}
}

// ctxErr prefers the context's error to the deadline error it caused: the
// connection's deadline, set from the context's, may fire first.
func ctxErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return err
}

// classify maps kitty's message to a sentinel.
func classify(msg string) error {
	switch {
	case strings.HasPrefix(msg, "No matching"): // windows, tabs
		return ErrNotFound
	case strings.HasPrefix(msg, "Remote control is disabled"),
		strings.HasPrefix(msg, "Remote control is allowed over a socket only"):
		return ErrRemoteControlDisabled
	case strings.Contains(msg, "newer than this kitty instance"):
		return ErrTooOld
	}
	return nil
}
