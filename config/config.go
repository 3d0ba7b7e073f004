// Package config holds xcsh's typed configuration and the on-disk paths it
// derives from it. It reads no flags and no files itself: cmd builds a Config
// from flags, environment and config files and hands it down.
package config

import (
	"fmt"
	"os"
	"path/filepath"
)

// AppName is the product name used for XDG sub-directories and export files.
const AppName = "xcsh"

// Config is the typed configuration every package below cmd receives.
type Config struct {
	// AgentDir overrides the agent directory (config key agent_dir, env XCSH_AGENT_DIR).
	AgentDir string
	// Home is the user's home directory; empty means os.UserHomeDir.
	Home string
	// Env looks up environment variables; nil means os.Getenv.
	Env func(string) string
}

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{}
}

// Validate reports a configuration that cannot be used.
func (c Config) Validate() error {
	if c.AgentDir != "" && !filepath.IsAbs(c.AgentDir) {
		return fmt.Errorf("agent_dir %q must be an absolute path", c.AgentDir)
	}
	return nil
}

func (c Config) getenv(k string) string {
	if c.Env != nil {
		return c.Env(k)
	}
	return os.Getenv(k)
}

func (c Config) home() string {
	if c.Home != "" {
		return c.Home
	}
	if h := c.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// Paths are the directories xcsh reads and writes, resolved once.
type Paths struct {
	// Agent is the agent directory, e.g. ~/.xcsh/agent.
	Agent string
	// Sessions holds one sub-directory of session files per working directory.
	Sessions string
	// Blobs holds externalised image data by sha256.
	Blobs string
	// TerminalSessions holds one breadcrumb file per terminal.
	TerminalSessions string
	// Agents holds the live state files of running agents.
	Agents string
	// HistoryDB is the prompt history database.
	HistoryDB string
}

// Resolve computes the paths exactly as the reference does: the config root is
// ~/<PI_CONFIG_DIR or .xcsh>, the agent dir <root>/agent unless
// PI_CODING_AGENT_DIR is set (resolved, no ~ expansion); XCSH_AGENT_DIR or the
// agent_dir key override both. When the agent dir is the default one and
// $XDG_DATA_HOME/xcsh (or $XDG_STATE_HOME/xcsh) exists, data (sessions, blobs,
// history) and state (terminal-sessions) move there.
func (c Config) Resolve() Paths {
	home := c.home()
	cfgDir := c.getenv("PI_CONFIG_DIR")
	if cfgDir == "" {
		cfgDir = ".xcsh"
	}
	def := filepath.Join(home, cfgDir, "agent")
	agent := def
	if v := c.getenv("PI_CODING_AGENT_DIR"); v != "" {
		agent, _ = filepath.Abs(v)
	}
	if v := c.getenv("XCSH_AGENT_DIR"); v != "" {
		agent, _ = filepath.Abs(v)
	}
	if c.AgentDir != "" {
		agent = filepath.Clean(c.AgentDir)
	}
	data, state := agent, agent
	if agent == def {
		if d := xdgDir(c.getenv("XDG_DATA_HOME")); d != "" {
			data = d
		}
		if d := xdgDir(c.getenv("XDG_STATE_HOME")); d != "" {
			state = d
		}
	}
	return Paths{
		Agent:            agent,
		Sessions:         filepath.Join(data, "sessions"),
		Blobs:            filepath.Join(data, "blobs"),
		TerminalSessions: filepath.Join(state, "terminal-sessions"),
		Agents:           filepath.Join(agent, "agents"),
		HistoryDB:        filepath.Join(data, "history.db"),
	}
}

func xdgDir(base string) string {
	if base == "" {
		return ""
	}
	d := filepath.Join(base, AppName)
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}
