//go:build !unix

package launcher

import "os"

// forwardedSignals are relayed to the jailed command when
// Options.ForwardSignals is set.
var forwardedSignals = []os.Signal{os.Interrupt}
