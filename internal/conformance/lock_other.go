//go:build !unix

package conformance

// lockFile does nothing where flock is not available: run one replay at a time.
func lockFile(string) (func(), error) { return func() {}, nil }
