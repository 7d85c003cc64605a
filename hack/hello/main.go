// Command hello is the static Go hello-world that hack/bench.sh uses as the
// baseline for a whole Go process start.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
