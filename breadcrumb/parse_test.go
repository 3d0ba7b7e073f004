package breadcrumb

import (
	"strings"
	"testing"
)

// FuzzParse checks that parse never panics, that what it accepts has both
// required lines, and that Write's encoding of an accepted crumb parses back
// to the same crumb.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "\n", "/w\n/s\n", "/w\r\n/s\r\ntok\r\n", "/w\n/s\ntok\nmore\n", "/w", "\n/s\n", "/w\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parse(data)
		if err != nil {
			return
		}
		if c.Cwd == "" || c.SessionFile == "" {
			t.Fatalf("parse(%q) = %+v: empty required field", data, c)
		}
		if strings.Contains(c.Cwd+c.SessionFile+c.Token, "\n") {
			t.Fatalf("parse(%q) = %+v: line break in a field", data, c)
		}
		if c.check() != nil {
			return // e.g. a lone '\r' inside a field: readable, not writable
		}
		back, err := parse(c.encode())
		if err != nil || back != c {
			t.Fatalf("round trip of %+v = %+v, %v", c, back, err)
		}
	})
}
