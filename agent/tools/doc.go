// Package tools implements xcsh's built-in coding tools: read, write, edit and
// bash. Each tool describes itself to the model with a JSON schema
// (Tool.Spec) and runs one call (Tool.Run), turning every failure into a
// Result with IsError set and a text the model can act on.
//
// The shapes follow the reference agent (see agent-messages.md §4): read shows
// at most 300 lines or 50 KiB at a time and says how to continue; edit
// replaces exact text and refuses ambiguous matches; bash runs in its own
// process group with a timeout and keeps a tail window of its output; when the
// session has an artifacts directory, the full output of every command that
// printed anything goes to a numbered log there (<n>.bash.log).
//
// Approval: a tool whose NeedsApproval is true (bash with
// Options.BashApprove) calls Env.Approve itself at the start of Run, so the
// agent loop passes its approver in Env and does not ask again.
package tools
