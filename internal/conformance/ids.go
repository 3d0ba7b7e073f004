package conformance

import (
	"encoding/binary"

	"github.com/xcsh-dev/xcsh/session"
)

// The reference harness (lib/det.mjs) draws every random value from a
// mulberry32 generator seeded with HARNESS_SEED=1: the snowflake counter of
// the session ids starts at the first draw (crypto.getRandomValues on a
// Uint32Array), and every entry id is randomUUID().slice(-8), the hex of the
// fourth of the four draws a UUID takes. The comparison renames ids only where
// they appear as the id of an entry or a session in the document; an id that
// shows only inside file text or an op result (a label entry that
// createBranchedSession dropped, say) is compared as it is. Drawing ours from
// the same generator in the same way makes those ids equal too whenever the
// session store asks for ids in the reference's order.

// mulberry32 returns the generator of det.mjs.
func mulberry32(seed uint32) func() uint32 {
	a := seed
	return func() uint32 {
		a += 0x6d2b79f5
		t := a
		t = (t ^ t>>15) * (t | 1)
		t ^= t + (t^t>>7)*(t|61)
		return t ^ t>>14
	}
}

// detIDSource returns an id source that reproduces the reference harness's ids.
func detIDSource(seed uint32) *session.IDSource {
	rnd := mulberry32(seed)
	first := true
	return session.NewIDSource(func(b []byte) {
		if first {
			// NewIDSource seeds the snowflake counter: getRandomValues, little endian
			first = false
			for i := 0; i < len(b); i += 4 {
				var w [4]byte
				binary.LittleEndian.PutUint32(w[:], rnd())
				copy(b[i:], w[:])
			}
			return
		}
		// an entry id: the last 8 hex digits of a UUID, i.e. its fourth draw
		for i := 0; i < len(b); i += 4 {
			rnd()
			rnd()
			rnd()
			var w [4]byte
			binary.BigEndian.PutUint32(w[:], rnd())
			copy(b[i:], w[:])
		}
	})
}
