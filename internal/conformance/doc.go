// Package conformance replays the session-store conformance corpus
// (testdata/conformance) against package session and compares the outcome
// with what the reference implementation did.
//
// A case is an ordered list of operations on the session API. Replay runs it
// exactly as the JavaScript harness that recorded the corpus ran it against the
// reference (the harness's gen-corpus.mjs, lib/values.mjs, lib/dump.mjs and
// lib/peers.mjs are the executable definition): a fresh HOME at
// /tmp/peer-harness-home, a virtual clock that moves 1000 ms before every
// operation, every changed file stamped with the virtual clock after every
// operation, and the same result document {peer, case, home, refs, log,
// snapshots}. Compare normalises two documents as compare.mjs does (generated
// ids renamed in order of appearance) and lists their differences;
// Departures filters out the differences that come from deliberate
// departures from the reference.
//
// Ids are drawn from the same seeded generator as the reference harness's, so
// that ids the comparison does not rename (those that appear only inside file
// text or op results) are equal too.
//
// TestConformance and cmd/replay run every case in a fresh process
// (ReplayIsolated), as the harness does. cmd/replay writes the result
// documents of a directory of cases, for `node compare.mjs` outside the test
// suite (`make conformance CASES=... OUT=...`).
package conformance
