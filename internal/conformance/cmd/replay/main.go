// Command replay replays a directory of session-store conformance cases
// against package session and writes one result document per case:
//
//	go run ./internal/conformance/cmd/replay -cases testdata/conformance/cases -out /tmp/out
//
// writes /tmp/out/<case name>.json for every *.json case, in the format of the
// reference harness, so that
//
//	node harness/compare.mjs expected/NN.json /tmp/out/NN.json
//
// can diff them. With -diff it compares two result documents instead, as
// compare.mjs does, and prints every difference (exit 1 when there is one):
//
//	go run ./internal/conformance/cmd/replay -diff [-keep-ids] [-departures FILE -case NAME] EXPECTED.json ACTUAL.json
//
// Every case runs in a fresh process (the program re-runs
// itself), as the reference harness runs them. It exits 1 when a case could not
// be replayed.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/xcsh-dev/xcsh/internal/conformance"
)

func main() {
	conformance.ServeChild()
	cases := flag.String("cases", "testdata/conformance/cases", "directory of *.json cases")
	out := flag.String("out", "out/conformance", "directory to write <case name>.json to")
	only := flag.String("case", "", "comma-separated case names to replay (default: all); with -diff -departures, the case")
	diffMode := flag.Bool("diff", false, "compare two result documents: -diff EXPECTED.json ACTUAL.json")
	keepIDs := flag.Bool("keep-ids", false, "with -diff: do not rename ids")
	deps := flag.String("departures", "", "with -diff: departures file to apply (needs -case)")
	flag.Parse()
	if *diffMode {
		os.Exit(diff(flag.Args(), *keepIDs, *deps, *only))
	}
	if err := run(*cases, *out, *only); err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
}

func run(casesDir, outDir, only string) error {
	cs, err := conformance.LoadCases(casesDir)
	if err != nil {
		return err
	}
	if len(cs) == 0 {
		return fmt.Errorf("no *.json cases in %s", casesDir)
	}
	want := map[string]bool{}
	for _, n := range strings.Split(only, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	failed := 0
	for _, c := range cs {
		if len(want) > 0 && !want[c.Name] {
			continue
		}
		t0 := time.Now()
		res, err := conformance.ReplayIsolated(exe, c)
		if err == nil {
			err = os.WriteFile(filepath.Join(outDir, c.Name+".json"), res.Indented(), 0o644)
		}
		ms := time.Since(t0).Milliseconds()
		if err != nil {
			failed++
			fmt.Printf("%s %s: FAILED (%v) %dms\n", conformance.Peer, c.Name, err, ms)
			continue
		}
		fmt.Printf("%s %s: ok %dms\n", conformance.Peer, c.Name, ms)
	}
	if failed > 0 {
		return fmt.Errorf("%d case(s) failed", failed)
	}
	return nil
}

func diff(args []string, keepIDs bool, depsFile, caseName string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "replay -diff: want EXPECTED.json ACTUAL.json")
		return 2
	}
	var docs [2]any
	for i, p := range args {
		data, err := os.ReadFile(p)
		if err == nil {
			docs[i], err = conformance.ParseDocument(data)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "replay -diff:", err)
			return 2
		}
	}
	var ds []conformance.Difference
	if depsFile != "" {
		deps, err := conformance.LoadDepartures(depsFile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "replay -diff:", err)
			return 2
		}
		ds, _ = conformance.CompareCase(caseName, docs[0], docs[1], deps)
	} else {
		ds = conformance.Compare(docs[0], docs[1], keepIDs)
	}
	if len(ds) == 0 {
		fmt.Println("identical")
		return 0
	}
	for _, d := range ds {
		fmt.Println(d)
	}
	return 1
}
