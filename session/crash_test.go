package session

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashChildEnv makes the test binary act as an appending agent.
const crashChildEnv = "XCSH_CRASH_CHILD_FILE"

// TestMain lets the test binary double as the crash test's child process.
func TestMain(m *testing.M) {
	if p := os.Getenv(crashChildEnv); p != "" {
		crashChild(p)
		return
	}
	os.Exit(m.Run())
}

// crashChild opens the session and appends entries forever, printing each
// id once it is flushed (fsynced), until it is killed.
func crashChild(path string) {
	opt := Options{SessionsRoot: filepath.Dir(path), BlobDir: filepath.Join(filepath.Dir(path), "blobs")}
	m, err := Open(opt, path, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		var id string
		if i%2 == 0 {
			id, err = m.AppendMessage(userMsg(fmt.Sprintf("prompt %d %s", i, strings.Repeat("p", i%700))))
		} else {
			id, err = m.AppendMessage(assistantMsg(fmt.Sprintf("answer %d", i)))
		}
		if err == nil {
			err = m.Flush()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(4)
		}
		fmt.Fprintln(out, id)
		out.Flush()
	}
}

// TestCrashKeepsFlushedEntries kills an appending child with SIGKILL at
// random moments, many times over the same file; after each kill the file
// loads and holds every entry the child reported as flushed.
func TestCrashKeepsFlushedEntries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "crash.jsonl")
	header := `{"type":"session","version":3,"id":"crashtest0000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/x"}` + "\n"
	if err := os.WriteFile(p, []byte(header), 0o600); err != nil {
		t.Fatal(err)
	}
	rounds := 25
	if testing.Short() {
		rounds = 5
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var flushed []string
	for r := 0; r < rounds; r++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+p)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ids := make(chan string, 1<<16)
		first := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(stdout)
			n := 0
			for sc.Scan() {
				ids <- sc.Text()
				if n++; n == 1 {
					close(first)
				}
			}
			close(ids)
		}()
		// kill at a random moment once the child is appending (a slow start,
		// e.g. under -race, must not end a round before anything happened)
		select {
		case <-first:
		case <-time.After(20 * time.Second):
		}
		time.Sleep(time.Duration(rng.IntN(40)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		for id := range ids {
			flushed = append(flushed, id)
		}
		if strings.Contains(stderr.String(), "exit") || (cmd.ProcessState.ExitCode() > 0) {
			t.Fatalf("round %d: child failed: %s", r, stderr.String())
		}
		m, err := Load(Options{}, p)
		if err != nil {
			t.Fatalf("round %d: file does not load after SIGKILL: %v", r, err)
		}
		for _, id := range flushed {
			if m.Entry(id) == nil {
				t.Fatalf("round %d: flushed entry %s lost (%d flushed so far)", r, id, len(flushed))
			}
		}
	}
	if len(flushed) == 0 {
		t.Fatal("the child never flushed an entry; the test proved nothing")
	}
	t.Logf("%d rounds, %d flushed entries all intact", rounds, len(flushed))
}
