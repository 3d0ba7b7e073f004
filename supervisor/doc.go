// Package supervisor is xcsh's engine: it joins the panes of a terminal
// multiplexer, the terminals they are (breadcrumb key and generation token),
// the agents running in them (live files) and their sessions (breadcrumbs and
// session metadata) into one Snapshot, publishes it to subscribers and keeps
// a copy on disk for `xcsh status`.
//
// Changes arrive from fsnotify on the agent dir (debounced; directories are
// rescanned when they appear and when the event queue overflows) and from the
// multiplexer's doorbell. With nothing changing the engine does nothing but a
// slow safety re-sync. Every pass also keeps breadcrumbs fresh: crumbs of
// terminals that are gone, and of sessions that were deleted, are removed; a
// crumb whose session moved follows it; a crumb follows its agent when the
// agent opens another session.
//
// Actions (launch, jump, resume-into, fork-into, close) go through the same
// Multiplexer. The package runs no process itself except through it, and
// imports config, session, terminal, breadcrumb and agent, never ui or cmd.
package supervisor
