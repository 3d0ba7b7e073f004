package kitty_test

import (
	"context"
	"os/exec"
	"strconv"
	"testing"

	"github.com/xcsh-dev/xcsh/terminal/kitty"
)

// benchWindows opens two more windows in the shared kitty's first tab, so
// ls lists three, and returns their ids.
func benchWindows(b *testing.B, k *instance) (int, int) {
	b.Helper()
	ids := make([]int, 2)
	for i := range ids {
		id, err := k.c.Launch(context.Background(), kitty.LaunchSpec{Args: []string{"sleep", "600"}})
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = id
		b.Cleanup(func() { _ = k.c.Close(context.Background(), id) })
	}
	return ids[0], ids[1]
}

// kittyAt runs kitty's own client, `kitty @ --to <addr> args...`.
func kittyAt(b *testing.B, k *instance, args ...string) {
	b.Helper()
	cmd := exec.Command("kitty", append([]string{"@", "--to", k.addr}, args...)...)
	cmd.Env = k.env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("kitty @ %v: %v: %s", args, err, out)
	}
}

// BenchmarkList is one ls round trip over the socket (with the /proc reads
// for the ttys), against kitty's own client.
func BenchmarkList(b *testing.B) {
	k := sharedKitty(b)
	benchWindows(b, k)
	ctx := context.Background()
	b.Run("socket", func(b *testing.B) {
		for b.Loop() {
			ws, err := k.c.List(ctx)
			if err != nil || len(ws) < 3 {
				b.Fatal(len(ws), err)
			}
		}
	})
	b.Run("kitty@", func(b *testing.B) {
		for b.Loop() {
			kittyAt(b, k, "ls")
		}
	})
}

// BenchmarkFocus is one focus-window round trip, alternating between two
// windows of a tab, against kitty's own client.
func BenchmarkFocus(b *testing.B) {
	k := sharedKitty(b)
	w1, w2 := benchWindows(b, k)
	ctx := context.Background()
	b.Run("socket", func(b *testing.B) {
		i := 0
		for b.Loop() {
			id := w1
			if i%2 == 1 {
				id = w2
			}
			i++
			if err := k.c.Focus(ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("kitty@", func(b *testing.B) {
		i := 0
		for b.Loop() {
			id := w1
			if i%2 == 1 {
				id = w2
			}
			i++
			kittyAt(b, k, "focus-window", "--match", "id:"+strconv.Itoa(id))
		}
	})
}
