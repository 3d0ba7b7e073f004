package session

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
)

// snowflakeEpoch is 2015-01-01T00:00:00Z in Unix milliseconds.
const snowflakeEpoch = 1420070400000

// IDSource generates session and entry ids. The zero value is not usable; use NewIDSource.
type IDSource struct {
	mu   sync.Mutex
	seq  uint32
	rand func([]byte)
}

// NewIDSource returns an id source whose snowflake counter starts at a random
// value. randFill fills a buffer with random bytes; nil means crypto/rand.
func NewIDSource(randFill func([]byte)) *IDSource {
	if randFill == nil {
		randFill = func(b []byte) { _, _ = rand.Read(b) }
	}
	var b [4]byte
	randFill(b[:])
	return &IDSource{seq: binary.LittleEndian.Uint32(b[:]) & 0x3fffff, rand: randFill}
}

// Snowflake returns a 16-hex-digit id: (ms since 2015) << 22 | a 22-bit counter.
func (s *IDSource) Snowflake(now time.Time) string {
	s.mu.Lock()
	s.seq = (s.seq + 1) & 0x3fffff
	seq := s.seq
	s.mu.Unlock()
	ms := uint64(now.UnixMilli() - snowflakeEpoch)
	v := ms<<22 | uint64(seq)
	return fmt.Sprintf("%08x%08x", uint32(v>>32), uint32(v))
}

// EntryID returns the last 8 hex digits of a random v4 UUID that is not taken;
// after 100 collisions it falls back to a snowflake.
func (s *IDSource) EntryID(taken func(string) bool, now time.Time) string {
	for i := 0; i < 100; i++ {
		var b [4]byte
		s.rand(b[:])
		id := hex.EncodeToString(b[:])
		if taken == nil || !taken(id) {
			return id
		}
	}
	return s.Snowflake(now)
}

// ISOTime formats t as JavaScript's Date.toISOString: UTC with milliseconds.
func ISOTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}

// FileName returns the session file name for a header timestamp and id:
// the ISO timestamp with ':' and '.' replaced by '-', then '_<id>.jsonl'.
func FileName(iso, id string) string {
	ts := strings.NewReplacer(":", "-", ".", "-").Replace(iso)
	return ts + "_" + id + ".jsonl"
}

// parseISOms parses an ISO timestamp into Unix milliseconds as JavaScript's
// Date parses the forms xcsh writes; ok is false when it cannot.
func parseISOms(s string) (int64, bool) {
	for _, layout := range []string{"2006-01-02T15:04:05.000Z07:00", time.RFC3339Nano, "2006-01-02T15:04:05Z07:00", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UnixMilli(), true
		}
	}
	return 0, false
}
