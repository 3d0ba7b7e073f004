package conformance

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	ServeChild()
	os.Exit(m.Run())
}

const testdata = "../../testdata/conformance"

// laterCases belong to the listing and resolution work: their differences are
// logged, and fail the test only with XCSH_CONFORMANCE_ALL=1.
var laterCases = map[string]bool{"24-listing": true, "25-continue-breadcrumb": true}

// maxShown bounds the differences printed per case.
const maxShown = 60

// TestConformance replays every case of testdata/conformance/cases, compares
// the result with testdata/conformance/expected as compare.mjs does, and fails
// on every difference that testdata/conformance/departures.txt does not list.
// XCSH_CONFORMANCE_OUT=<dir> also writes the result documents there.
func TestConformance(t *testing.T) {
	cases, err := LoadCases(filepath.Join(testdata, "cases"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("no cases")
	}
	deps, err := LoadDepartures(filepath.Join(testdata, "departures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	outDir := os.Getenv("XCSH_CONFORMANCE_OUT")
	all := os.Getenv("XCSH_CONFORMANCE_ALL") == "1"
	used := map[int]bool{}
	ran := map[string]bool{}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			ran[c.Name] = true
			data, err := os.ReadFile(filepath.Join(testdata, "expected", c.Name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			want, err := ParseDocument(data)
			if err != nil {
				t.Fatalf("expected: %v", err)
			}
			res, err := ReplayIsolated(os.Args[0], c)
			if err != nil {
				t.Fatal(err)
			}
			if outDir != "" {
				if err := os.MkdirAll(outDir, 0o755); err == nil {
					_ = os.WriteFile(filepath.Join(outDir, c.Name+".json"), res.Indented(), 0o644)
				}
			}
			// compare what compare.mjs would read: our document as written
			got, err := ParseDocument(res.Indented())
			if err != nil {
				t.Fatalf("our document does not parse: %v", err)
			}
			remaining, hit := CompareCase(c.Name, want, got, deps)
			for _, d := range hit {
				used[d.Line] = true
			}
			if len(remaining) == 0 {
				return
			}
			report := formatDiffs(remaining)
			if laterCases[c.Name] && !all {
				t.Logf("%d difference(s) (case for the listing/resolution issue; set XCSH_CONFORMANCE_ALL=1 to fail on them):\n%s", len(remaining), report)
				return
			}
			t.Errorf("%d difference(s) from the reference not covered by departures.txt:\n%s", len(remaining), report)
		})
	}
	for _, d := range deps {
		ranCase := false
		for name := range ran {
			ranCase = ranCase || d.forCase(name)
		}
		if ranCase && !used[d.Line] {
			t.Logf("departures.txt line %d (%s %s) matched no difference", d.Line, d.Case, d.Path)
		}
	}
}

func formatDiffs(ds []Difference) string {
	var b strings.Builder
	for i, d := range ds {
		if i == maxShown {
			fmt.Fprintf(&b, "  ... and %d more\n", len(ds)-maxShown)
			break
		}
		fmt.Fprintf(&b, "  %s\n", d)
	}
	return b.String()
}

// TestDeparturesFile checks that every departure names an existing case and
// gives a reason.
func TestDeparturesFile(t *testing.T) {
	deps, err := LoadDepartures(filepath.Join(testdata, "departures.txt"))
	if err != nil {
		t.Fatal(err)
	}
	cases, err := LoadCases(filepath.Join(testdata, "cases"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deps {
		found := false
		for _, c := range cases {
			if d.Case == c.Name || strings.HasPrefix(c.Name, d.Case+"-") {
				found = true
			}
		}
		if !found {
			t.Errorf("departures.txt line %d: no case %q", d.Line, d.Case)
		}
		if d.Reason == "" {
			t.Errorf("departures.txt line %d: no reason", d.Line)
		}
	}
}
