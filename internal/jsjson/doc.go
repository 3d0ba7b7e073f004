// Package jsjson is the byte-level JSON codec for session files that must stay
// byte-compatible with a TypeScript program: it writes each JSONL line with
// JavaScript's JSON.stringify and reads files with Bun's lenient JSONL parser.
//
// It has three parts:
//
//   - ParseJSONL, a fast lenient JSONL scanner that keeps values as raw bytes
//     (sub-slices of the input), locates the top-level members of objects
//     (Member: offsets, and a code for well-known keys), and flags values
//     that are already in canonical form;
//   - Canonical and the Append* encoders, which produce exactly what
//     JSON.stringify(JSON.parse(x)) produces in JavaScript;
//   - Node, a small ordered JSON tree for the rare paths that edit values.
//
// Strings are held as WTF-8: UTF-8 plus the 3-byte encodings of lone
// surrogates (ED A0 80..ED BF BF), so that every JavaScript string, including
// one with a lone surrogate from a "\ud800" escape, has exactly one Go form.
package jsjson
