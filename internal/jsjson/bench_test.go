package jsjson

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
)

// assistantDoc returns lines session lines of about 2 KB: assistant messages
// whose text is mostly ASCII prose with escaped newlines and quotes and a
// little non-ASCII, as JSON.stringify writes them.
func assistantDoc(lines int) []byte {
	r := rand.New(rand.NewPCG(11, 12))
	prose := []string{"the", "function", "returns", "an", "error", "when", "file", "is", "missing", "so", "we",
		"check", "it", "first", "and", "then", "write", "session", "entry", "to", "disk", "(see", "above)", "ok,",
		"`go test ./...`", "passes", "a", "value", "of", "in", "this", "case", "for", "with", "that", "on", "by",
		"not", "be", "are", "from", "or", "have", "an", "they", "which", "one", "you", "were", "all", "her",
		"would", "there", "their", "will", "when", "who", "make", "can", "more", "if", "no", "out", "so",
		"said", "what", "up", "its", "about", "into", "than", "them", "only", "other", "new", "some", "could",
		"time", "these", "two", "may", "then", "do", "first", "any", "my", "now", "such", "like", "our", "over",
		"even", "most", "after", "also", "did", "many", "before", "must", "through", "back", "years", "where",
		"much", "your", "way", "well", "down", "should", "because", "each", "just", "those", "people", "how",
		"too", "little", "state", "good", "very", "still", "own", "see", "men", "work", "long", "get", "here",
		"between", "both", "life", "being", "under", "never", "day", "same", "another", "know", "while", "last",
		"might", "us", "great", "old", "year", "off", "come", "since", "against", "go", "came", "right", "used",
		"take", "three", "naïve", "café", "—", "→", "✓", "日本語"}
	var b bytes.Buffer
	var text bytes.Buffer
	for i := range lines {
		text.Reset()
		for text.Len() < 1500 {
			text.WriteString(prose[r.IntN(len(prose))])
			switch r.IntN(12) {
			case 0:
				text.WriteString(`\n`)
			case 1:
				text.WriteString(`. \"quoted\" `)
			default:
				text.WriteByte(' ')
			}
		}
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":"%08x","timestamp":"2025-12-01T10:%02d:%02d.%03dZ",`,
			r.Uint32(), r.Uint32(), i/60%60, i%60, i%1000)
		fmt.Fprintf(&b, `"message":{"role":"assistant","content":[{"type":"thinking","thinking":"Let me think about this.","thinkingSignature":"sig%d"},{"type":"text","text":"%s"}],`, i, text.Bytes())
		fmt.Fprintf(&b, `"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":%d,"output":%d,"cacheRead":%d,"cacheWrite":0,"totalTokens":%d,"cost":{"input":%v,"output":%v,"cacheRead":0,"cacheWrite":0,"total":%v}},"stopReason":"stop","timestamp":%d}}`,
			r.IntN(50000), r.IntN(4000), r.IntN(100000), r.IntN(150000), float64(r.IntN(10000))/1e6, float64(r.IntN(10000))/1e6, float64(r.IntN(20000))/1e6, 1764583200000+int64(i)*1000)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// toolResultDoc returns lines session lines of about 2 KB holding tool
// results with source code: an escape every 10 to 20 bytes.
func toolResultDoc(lines int) []byte {
	code := []string{`func (s *Store) Load(path string) error {`, `\tdata, err := os.ReadFile(path)`,
		`\tif err != nil {`, `\t\treturn fmt.Errorf(\"load %s: %w\", path, err)`, `\t}`,
		`\tfor _, line := range bytes.Split(data, []byte(\"\\n\")) {`, `\t\ts.lines = append(s.lines, line) // “ok”`, `}`}
	var b bytes.Buffer
	for i := range lines {
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":"%08x","timestamp":"2025-12-01T10:00:00.000Z",`, i, i+1)
		b.WriteString(`"message":{"role":"toolResult","toolCallId":"toolu_01","toolName":"read","content":[{"type":"text","text":"`)
		for n := 0; n < 1800; {
			l := code[(i+n)%len(code)]
			b.WriteString(l)
			b.WriteString(`\n`)
			n += len(l) + 2
		}
		fmt.Fprintf(&b, `"}],"isError":false,"timestamp":%d}}`, 1764583200000+int64(i)*1000)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func benchParse(b *testing.B, doc []byte, workers int) {
	if vs := parseJSONL(doc, workers, 0); len(vs) != 10000 || !vs[0].Canonical || !vs[9999].Canonical {
		b.Fatalf("got %d values", len(vs))
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		parseJSONL(doc, workers, 0)
	}
}

func BenchmarkParseJSONL(b *testing.B) {
	text, code := assistantDoc(10000), toolResultDoc(10000)
	b.Run("sequential", func(b *testing.B) { benchParse(b, text, 1) })
	b.Run("parallel", func(b *testing.B) { benchParse(b, text, runtime.GOMAXPROCS(0)) })
	b.Run("sequential-code", func(b *testing.B) { benchParse(b, code, 1) })
}

func BenchmarkCanonical(b *testing.B) {
	doc := assistantDoc(100)
	line := doc[:bytes.IndexByte(doc, '\n')]
	messy := bytes.ReplaceAll(line, []byte(`":`), []byte(`": `))
	b.Run("canonical", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			_, _ = Canonical(line)
		}
	})
	b.Run("rewrite", func(b *testing.B) {
		b.SetBytes(int64(len(messy)))
		for b.Loop() {
			_, _ = Canonical(messy)
		}
	})
}
