// Command xcsh is a terminal-multiplexer-aware coding-agent supervisor.
package main

import (
	"os"

	"github.com/xcsh-dev/xcsh/cmd"
)

func main() {
	os.Exit(cmd.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
