package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	home := t.TempDir()
	xdgData := filepath.Join(home, "xdg-data")
	xdgState := filepath.Join(home, "xdg-state")
	if err := os.MkdirAll(filepath.Join(xdgData, "xcsh"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		env      map[string]string
		agentDir string
		agent    string
		sessions string
		crumbs   string
	}{
		{"default", nil, "", home + "/.xcsh/agent", home + "/.xcsh/agent/sessions", home + "/.xcsh/agent/terminal-sessions"},
		{"PI_CONFIG_DIR", map[string]string{"PI_CONFIG_DIR": ".omp"}, "", home + "/.omp/agent", home + "/.omp/agent/sessions", home + "/.omp/agent/terminal-sessions"},
		{"PI_CODING_AGENT_DIR", map[string]string{"PI_CODING_AGENT_DIR": "/srv/agent"}, "", "/srv/agent", "/srv/agent/sessions", "/srv/agent/terminal-sessions"},
		{"XCSH_AGENT_DIR wins over PI", map[string]string{"PI_CODING_AGENT_DIR": "/srv/agent", "XCSH_AGENT_DIR": "/x/agent"}, "", "/x/agent", "/x/agent/sessions", "/x/agent/terminal-sessions"},
		{"agent_dir key wins", map[string]string{"XCSH_AGENT_DIR": "/x/agent"}, "/cfg/agent", "/cfg/agent", "/cfg/agent/sessions", "/cfg/agent/terminal-sessions"},
		{"empty env counts as unset", map[string]string{"PI_CODING_AGENT_DIR": ""}, "", home + "/.xcsh/agent", home + "/.xcsh/agent/sessions", home + "/.xcsh/agent/terminal-sessions"},
		{"XDG data dir that exists", map[string]string{"XDG_DATA_HOME": xdgData, "XDG_STATE_HOME": xdgState}, "", home + "/.xcsh/agent", xdgData + "/xcsh/sessions", home + "/.xcsh/agent/terminal-sessions"},
		{"XDG ignored for a custom agent dir", map[string]string{"XDG_DATA_HOME": xdgData, "PI_CODING_AGENT_DIR": "/srv/agent"}, "", "/srv/agent", "/srv/agent/sessions", "/srv/agent/terminal-sessions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{Home: home, AgentDir: tt.agentDir, Env: func(k string) string { return tt.env[k] }}
			p := c.Resolve()
			if p.Agent != tt.agent || p.Sessions != tt.sessions || p.TerminalSessions != tt.crumbs {
				t.Errorf("got agent %s sessions %s crumbs %s\nwant agent %s sessions %s crumbs %s", p.Agent, p.Sessions, p.TerminalSessions, tt.agent, tt.sessions, tt.crumbs)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	if err := (Config{AgentDir: "rel/dir"}).Validate(); err == nil {
		t.Error("relative agent_dir accepted")
	}
	if err := (Config{AgentDir: "/abs"}).Validate(); err != nil {
		t.Errorf("absolute agent_dir refused: %v", err)
	}
}
