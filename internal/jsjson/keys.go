package jsjson

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// keyRef is a key of an open object, kept to detect duplicates while the
// value is still canonical (then equal raw bytes mean equal keys).
type keyRef struct {
	hash       uint64
	start, end int
}

// smallObj is the number of keys up to which duplicates are found by a
// linear scan as each key arrives.
const smallObj = 16

// keyMember starts the member whose key token is data[ks:ke] (quotes
// included), in the value that starts at data[base] and whose previous
// member ends at data[base+prevEnd] (prevEnd 0: the first, after the '{').
func (s *scanner) keyMember(base, prevEnd, ks, ke int, simple bool) Member {
	m := Member{KeyLen: LongKey}
	if n := ke - ks - 2; n < LongKey {
		m.KeyLen = uint16(n)
	}
	if ks != base+prevEnd+1 {
		m.Flags = MemberSpaced
	}
	if simple {
		m.Code = keyCodeOf(s.data[ks+1 : ke-1])
	} else {
		m.Flags |= KeyEscaped
		k, _ := DecodeString(s.data[ks:ke])
		m.Code = KeyCode(k)
	}
	return m
}

// startMembers begins the members of a new value.
func (s *scanner) startMembers() {
	if !s.collect {
		return
	}
	if cap(s.members)-len(s.members) < 32 {
		s.members = make([]Member, 0, s.memberBlock)
		s.memberBlock = 4096
	}
	s.memberStart = len(s.members)
}

// addMember appends a top-level member, moving the value's members to a new
// block when the current one is full.
func (s *scanner) addMember(m Member) {
	if len(s.members) == cap(s.members) {
		cur := s.members[s.memberStart:]
		nm := make([]Member, len(cur), max(s.memberBlock, 2*len(cur)))
		copy(nm, cur)
		s.members, s.memberStart = nm, 0
	}
	s.members = append(s.members, m)
}

// takeMembers returns the members of the value just scanned.
func (s *scanner) takeMembers() Members {
	m := s.members[s.memberStart:len(s.members):len(s.members)]
	s.memberStart = len(s.members)
	return m
}

// dropMembers discards the members of a value that failed.
func (s *scanner) dropMembers() {
	if s.collect {
		s.members = s.members[:s.memberStart]
	}
}

// arrayIndex parses k as a canonical array index ("0", "42"; no leading
// zeros; below 2^32-1), the keys that JavaScript objects list first.
func arrayIndex[T byteSeq](k T) (int64, bool) {
	if len(k) == 0 || len(k) > 10 || (k[0] == '0' && len(k) > 1) {
		return 0, false
	}
	var v int64
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, v < 1<<32-1
}

// addKey records key data[start:end] (between the quotes) of the innermost
// object and checks the canonical key order and duplicates.
func (s *scanner) addKey(start, end int, simple bool) {
	b := s.data
	top := &s.stack[len(s.stack)-1]
	raw := b[start:end]
	if v, ok := arrayIndex(raw); ok && simple {
		if top.seenNonInt || v <= top.lastInt {
			s.canon = false
			return
		}
		top.lastInt = v
	} else {
		top.seenNonInt = true
	}
	h := keyHash(raw)
	if len(s.keys)-top.keyBase < smallObj {
		for _, k := range s.keys[top.keyBase:] {
			if k.hash == h && bytes.Equal(b[k.start:k.end], raw) {
				s.canon = false
				return
			}
		}
	} else {
		top.bigObj = true
	}
	s.keys = append(s.keys, keyRef{hash: h, start: start, end: end})
}

// checkBigObject looks for duplicate keys among s.keys[base:] by sorting.
func (s *scanner) checkBigObject(base int) {
	keys := s.keys[base:]
	s.order = s.order[:0]
	for i := range keys {
		s.order = append(s.order, i)
	}
	slices.SortFunc(s.order, func(a, b int) int {
		ha, hb := keys[a].hash, keys[b].hash
		switch {
		case ha < hb:
			return -1
		case ha > hb:
			return 1
		}
		return 0
	})
	for x := 1; x < len(s.order); x++ {
		a := keys[s.order[x-1]]
		for y := x; y < len(s.order) && keys[s.order[y]].hash == a.hash; y++ {
			k := keys[s.order[y]]
			if bytes.Equal(s.data[a.start:a.end], s.data[k.start:k.end]) {
				s.canon = false
				return
			}
		}
	}
}

// keyHash is a cheap hash of a key's raw bytes: its length and its first and
// last eight bytes. Equal hashes are confirmed by comparing the bytes.
func keyHash(k []byte) uint64 {
	var a, z uint64
	if len(k) >= 8 {
		a = binary.LittleEndian.Uint64(k)
		z = binary.LittleEndian.Uint64(k[len(k)-8:])
	} else {
		for i, c := range k {
			a |= uint64(c) << (8 * i)
		}
	}
	h := (a*0x9E3779B97F4A7C15 ^ z) * 0xFF51AFD7ED558CCD
	return h ^ h>>29 ^ uint64(len(k))
}
