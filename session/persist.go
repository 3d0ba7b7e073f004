package session

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
)

// latch records the first persistence error and returns the latched one.
func (m *Manager) latch(err error) error {
	if m.persistErr == nil {
		m.persistErr = err
	}
	return m.persistErr
}

// PersistError returns the latched persistence error, if any.
func (m *Manager) PersistError() error { return m.persistErr }

// persistEntry writes a just-appended entry (reference section 5, _persist):
// nothing before the first assistant message, then the whole session, then
// one line per entry.
func (m *Manager) persistEntry(e *Entry) error {
	if !m.persist || m.file == "" {
		return nil
	}
	if m.persistErr != nil {
		return m.persistErr
	}
	if !m.ensuredOnDisk && !m.hasAsst {
		m.flushed = false
		return nil
	}
	if m.needsRewrite || !m.flushed {
		if err := m.rewrite(); err != nil {
			return m.latch(err)
		}
		return nil
	}
	if err := m.appendLine(e); err != nil {
		return m.latch(err)
	}
	return nil
}

func (m *Manager) appendLine(e *Entry) error {
	line, err := prepareForDisk(e.JSON(), m.blobs)
	if err != nil {
		return err
	}
	if m.writer == nil {
		w, err := m.st.OpenAppend(m.file)
		if err != nil {
			return fmt.Errorf("open session %s: %w", m.file, err)
		}
		m.writer = w
		if !w.EndsWithNewline() {
			// a torn last line: start on a fresh line so nothing is glued to it
			if _, err := w.Write([]byte{'\n'}); err != nil {
				return fmt.Errorf("write session %s: %w", m.file, err)
			}
		}
	}
	var buf []byte
	if cap(line) > len(line) {
		buf = append(line, '\n') // the spare byte encodeInto reserves: no copy
	} else {
		buf = append(append(make([]byte, 0, len(line)+1), line...), '\n')
	}
	if _, err := m.writer.Write(buf); err != nil {
		return fmt.Errorf("write session %s: %w", m.file, err)
	}
	return nil
}

func (m *Manager) closeWriter() {
	if m.writer != nil {
		_ = m.writer.Close()
		m.writer = nil
	}
}

// rewrite replaces the file with the header and every entry, prepared, by
// an atomic temp-file rename (callers that keep the mtime restore it).
func (m *Manager) rewrite() error {
	m.closeWriter()
	if err := m.writeAll(m.file, m.header, m.entries); err != nil {
		return err
	}
	m.needsRewrite = false
	m.flushed = true
	return nil
}

// writeAll writes header and entries to path atomically.
func (m *Manager) writeAll(path string, header *Entry, entries []*Entry) error {
	tmp := "." + filepath.Base(path) + "." + m.opt.IDs.Snowflake(m.now()) + ".tmp"
	err := m.st.WriteAtomic(path, tmp, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		write := func(e *Entry) error {
			line, err := prepareForDisk(e.JSON(), m.blobs)
			if err != nil {
				return err
			}
			if _, err := bw.Write(line); err != nil {
				return err
			}
			return bw.WriteByte('\n')
		}
		if err := write(header); err != nil {
			return err
		}
		for _, e := range entries {
			if err := write(e); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("write session %s: %w", path, err)
	}
	return nil
}

// Flush makes every written line durable (fsync) and returns the latched
// error, if any.
func (m *Manager) Flush() error {
	if m.writer != nil && m.persistErr == nil {
		if err := m.writer.Sync(); err != nil {
			m.latch(fmt.Errorf("sync session %s: %w", m.file, err))
		}
	}
	return m.persistErr
}

// Close flushes and closes the file; it returns the latched error, if any.
func (m *Manager) Close() error {
	err := m.Flush()
	m.closeWriter()
	m.flushed = true
	return err
}

// EnsureOnDisk writes the session now, even without an assistant message, and
// from then on every entry as it is appended.
func (m *Manager) EnsureOnDisk() error {
	if !m.persist || m.file == "" {
		return nil
	}
	if m.persistErr != nil {
		return m.persistErr
	}
	if !m.flushed || m.needsRewrite {
		if err := m.rewrite(); err != nil {
			return m.latch(err)
		}
	}
	m.ensuredOnDisk = true
	return nil
}

// RewriteEntries rewrites the whole file atomically from memory.
func (m *Manager) RewriteEntries() error {
	if !m.persist || m.file == "" {
		return nil
	}
	if m.persistErr != nil {
		return m.persistErr
	}
	if err := m.rewrite(); err != nil {
		return m.latch(err)
	}
	return nil
}
