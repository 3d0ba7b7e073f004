package tools

import (
	"fmt"
	"strings"
)

// meta is the reference's OutputMeta (details.meta): where the text came from
// and how it was cut. Field order is the JSON key order (read writes source
// before truncation).
type meta struct {
	Source     *source     `json:"source,omitempty"`
	Truncation *truncation `json:"truncation,omitempty"`
}

type source struct {
	Type  string `json:"type"` // "path"
	Value string `json:"value"`
}

// truncation describes a cut: direction "head" keeps the start (read),
// "tail" keeps the end (bash).
type truncation struct {
	Direction             string     `json:"direction"`
	TruncatedBy           string     `json:"truncatedBy"` // "lines" or "bytes"
	TotalLines            int        `json:"totalLines"`
	TotalBytes            int64      `json:"totalBytes"`
	OutputLines           int        `json:"outputLines"`
	OutputBytes           int        `json:"outputBytes"`
	MaxBytes              int        `json:"maxBytes,omitempty"`
	ShownRange            *lineRange `json:"shownRange,omitempty"`
	FirstLineExceedsLimit bool       `json:"firstLineExceedsLimit,omitempty"`
	LastLinePartial       bool       `json:"lastLinePartial,omitempty"`
	ArtifactID            string     `json:"artifactId,omitempty"`
	NextOffset            int        `json:"nextOffset,omitempty"`
}

type lineRange struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// notice renders the bracketed line appended to a cut text, e.g.
// "[showing lines 1-300 of 912. use offset=301 to continue]".
func (t *truncation) notice(logPath string) string {
	var b strings.Builder
	b.WriteString("[")
	if t.ShownRange != nil && t.ShownRange.End >= t.ShownRange.Start {
		fmt.Fprintf(&b, "showing lines %d-%d of %d", t.ShownRange.Start, t.ShownRange.End, t.TotalLines)
	} else {
		fmt.Fprintf(&b, "showing %d of %d lines", t.OutputLines, t.TotalLines)
	}
	if t.TruncatedBy == "bytes" {
		fmt.Fprintf(&b, " (%s limit)", formatSize(int64(t.MaxBytes)))
	}
	if t.NextOffset > 0 {
		fmt.Fprintf(&b, ". use offset=%d to continue", t.NextOffset)
	}
	if logPath != "" {
		fmt.Fprintf(&b, ". full output: %s", logPath)
	}
	b.WriteString("]")
	return b.String()
}

// formatSize prints a byte count as the reference does: 123B, 1.5KB, 2.0MB
// (1024-based, one decimal).
func formatSize(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1fKB", float64(n)/1024)
	case n < 1024*1024*1024:
		return fmt.Sprintf("%.1fMB", float64(n)/(1024*1024))
	}
	return fmt.Sprintf("%.1fGB", float64(n)/(1024*1024*1024))
}
