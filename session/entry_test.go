package session

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xcsh-dev/xcsh/internal/jsjson"
)

var update = flag.Bool("update", false, "rewrite golden files")

func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	vals := jsjson.ParseJSONL(raw)
	if len(vals) != 1 {
		t.Fatalf("not one value: %s", raw)
	}
	var ks []string
	for _, f := range vals[0].Fields() {
		ks = append(ks, f.Key)
	}
	return ks
}

// TestEntryKeyOrder appends one entry of every type and checks the member
// order the reference writes (section 5, "Entry key orders").
func TestEntryKeyOrder(t *testing.T) {
	base := "type,id,parentId,timestamp"
	tests := []struct {
		name string
		add  func(m *Manager) (string, error)
		want string
	}{
		{"message", func(m *Manager) (string, error) { return m.AppendMessage(userMsg("hi")) }, base + ",message"},
		{"thinking", func(m *Manager) (string, error) { return m.AppendThinkingLevelChange(RawJSON(`"high"`)) }, base + ",thinkingLevel"},
		{"thinking null", func(m *Manager) (string, error) { return m.AppendThinkingLevelChange(nil) }, base + ",thinkingLevel"},
		{"model", func(m *Manager) (string, error) { return m.AppendModelChange("openai/gpt-5", nil) }, base + ",model"},
		{"model role", func(m *Manager) (string, error) { return m.AppendModelChange("openai/gpt-5", RawJSON(`"smol"`)) }, base + ",model,role"},
		{"service tier", func(m *Manager) (string, error) { return m.AppendServiceTierChange(RawJSON(`"priority"`)) }, base + ",serviceTier"},
		{"mode", func(m *Manager) (string, error) { return m.AppendModeChange("plan", RawJSON(`{"a":1}`)) }, base + ",mode,data"},
		{"mode no data", func(m *Manager) (string, error) { return m.AppendModeChange("plan", nil) }, base + ",mode"},
		{"context", func(m *Manager) (string, error) {
			return m.AppendContextChange(RawJSON(`"prod"`), RawJSON(`"t"`), RawJSON(`"ns"`))
		}, base + ",contextName,tenant,namespace"},
		{"session init", func(m *Manager) (string, error) {
			return m.AppendSessionInit(RawJSON(`{"task":"t","systemPrompt":"p","tools":["a"],"outputSchema":{}}`))
		}, base + ",systemPrompt,task,tools,outputSchema"},
		{"compaction", func(m *Manager) (string, error) {
			return m.AppendCompaction(Compaction{Summary: "s", ShortSummary: RawJSON(`"x"`), FirstKeptEntryID: RawJSON(`"abc"`), TokensBefore: RawJSON(`10`), Details: RawJSON(`{}`), FromExtension: RawJSON(`true`), PreserveData: RawJSON(`{}`)})
		}, base + ",summary,shortSummary,firstKeptEntryId,tokensBefore,details,fromExtension,preserveData"},
		{"compaction minimal", func(m *Manager) (string, error) {
			return m.AppendCompaction(Compaction{Summary: "s", FirstKeptEntryID: RawJSON(`"abc"`), TokensBefore: RawJSON(`10`)})
		}, base + ",summary,firstKeptEntryId,tokensBefore"},
		{"branch summary", func(m *Manager) (string, error) {
			return m.BranchWithSummary("", "sum", RawJSON(`{}`), RawJSON(`false`))
		}, base + ",fromId,summary,details,fromExtension"},
		{"custom", func(m *Manager) (string, error) { return m.AppendCustomEntry("ext", RawJSON(`{"k":1}`)) }, "type,customType,data,id,parentId,timestamp"},
		{"custom no data", func(m *Manager) (string, error) { return m.AppendCustomEntry("ext", nil) }, "type,customType,id,parentId,timestamp"},
		{"custom message", func(m *Manager) (string, error) {
			return m.AppendCustomMessageEntry("ext", RawJSON(`"hello"`), true, RawJSON(`{}`), nil)
		}, "type,customType,content,display,details,attribution,id,parentId,timestamp"},
		{"ttsr", func(m *Manager) (string, error) { return m.AppendTTSRInjection(RawJSON(`["r1"]`)) }, base + ",injectedRules"},
		{"mcp", func(m *Manager) (string, error) { return m.AppendMCPToolSelection(RawJSON(`["t1"]`)) }, base + ",selectedToolNames"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt, home := testOptions(t)
			m := Create(opt, filepath.Join(home, "proj"), "")
			id := mustAppend(t)(tt.add(m))
			e := m.Entry(id)
			if got := strings.Join(keysOf(t, e.JSON()), ","); got != tt.want {
				t.Errorf("keys = %s\nwant   %s", got, tt.want)
			}
		})
	}
}

func TestLabelEntry(t *testing.T) {
	opt, home := testOptions(t)
	m := Create(opt, filepath.Join(home, "proj"), "")
	u := mustAppend(t)(m.AppendMessage(userMsg("q")))
	l := mustAppend(t)(m.AppendLabelChange(u, RawJSON(`"checkpoint"`)))
	if got := strings.Join(keysOf(t, m.Entry(l).JSON()), ","); got != "type,id,parentId,timestamp,targetId,label" {
		t.Errorf("label keys = %s", got)
	}
	if m.Label(u) != "checkpoint" {
		t.Errorf("label = %q", m.Label(u))
	}
	clr := mustAppend(t)(m.AppendLabelChange(u, nil))
	if got := strings.Join(keysOf(t, m.Entry(clr).JSON()), ","); got != "type,id,parentId,timestamp,targetId" {
		t.Errorf("cleared label keys = %s", got)
	}
	if m.Label(u) != "" {
		t.Errorf("label not cleared: %q", m.Label(u))
	}
	if _, err := m.AppendLabelChange("nope0000", RawJSON(`"x"`)); err == nil || err.Error() != "Entry nope0000 not found" {
		t.Errorf("unknown target: %v", err)
	}
}

// TestUnknownSurvives loads a file with an unknown entry type and unknown
// fields, rewrites it, and checks the bytes are unchanged.
func TestUnknownSurvives(t *testing.T) {
	opt, home := testOptions(t)
	p := filepath.Join(home, "s.jsonl")
	content := `{"type":"session","version":3,"id":"abc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x","future":{"z":1,"a":[true,null]}}
{"type":"wormhole","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","payload":{"deep":"</script>\u2028"},"x":1.5}
{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"hi","timestamp":1,"extra":"kept"},"annotation":"mine"}
`
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := Open(opt, p, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.RewriteEntries(); err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(content, `\u2028`, "\u2028", 1)
	if got := readFile(t, p); got != want {
		t.Errorf("rewrite changed the file:\n%s\nwant\n%s", got, want)
	}
}

// TestGoldenSession writes a session with every entry type and compares the
// bytes with testdata/golden/all-types.jsonl (go test -run Golden -update).
func TestGoldenSession(t *testing.T) {
	opt, _ := testOptions(t)
	opt.Home = "/home/u"
	dir := t.TempDir()
	m := Create(opt, "/home/u/proj", dir)
	u := mustAppend(t)(m.AppendMessage(userMsg("Fix the <b>bug</b> & \u2028 \"quote\" \x01")))
	mustAppend(t)(m.AppendThinkingLevelChange(RawJSON(`"medium"`)))
	mustAppend(t)(m.AppendModelChange("anthropic/claude-sonnet-4-5", nil))
	a := mustAppend(t)(m.AppendMessage(assistantMsg("Done. 😀")))
	mustAppend(t)(m.AppendLabelChange(u, RawJSON(`"start"`)))
	mustAppend(t)(m.AppendCompaction(Compaction{Summary: "sum", FirstKeptEntryID: RawJSON(str(a)), TokensBefore: RawJSON(`1234`)}))
	mustAppend(t)(m.AppendCustomEntry("ext", RawJSON(`{"n":1e3,"f":0.1}`)))
	mustAppend(t)(m.AppendCustomMessageEntry("ext", RawJSON(`"note"`), false, nil, RawJSON(`"user"`)))
	mustAppend(t)(m.BranchWithSummary(u, "went elsewhere", nil, nil))
	mustAppend(t)(m.AppendTTSRInjection(RawJSON(`["rule-a"]`)))
	mustAppend(t)(m.AppendMCPToolSelection(RawJSON(`["search"]`)))
	mustAppend(t)(m.AppendModeChange("plan", nil))
	mustAppend(t)(m.AppendServiceTierChange(nil))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(m.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "golden", "all-types.jsonl")
	if *update {
		_ = os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("written bytes differ from %s:\n%s", golden, got)
	}
	// and it loads back to the same bytes
	m2, err := Load(opt, m.SessionFile())
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	buf.Write(m2.Header().JSON())
	buf.WriteByte('\n')
	for _, e := range m2.Entries() {
		buf.Write(e.JSON())
		buf.WriteByte('\n')
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("load and re-encode changed bytes")
	}
}
