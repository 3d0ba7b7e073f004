// Package all registers every built-in provider implementation with
// provider.New: import it for its side effect.
//
//	import _ "github.com/xcsh-dev/xcsh/agent/provider/all"
package all

import (
	// Each package registers its API in init.
	_ "github.com/xcsh-dev/xcsh/agent/provider/anthropic"
	_ "github.com/xcsh-dev/xcsh/agent/provider/openai"
	_ "github.com/xcsh-dev/xcsh/agent/provider/scripted"
)
