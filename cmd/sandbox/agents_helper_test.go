package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"time"
)

// portHelperMain is this test binary run as `porthelper` (a copy of it
// in an agent's worktree, inside its jail): `porthelper serve NAME`
// answers NAME to every connection on 127.0.0.1:3000; `porthelper get`
// prints what 127.0.0.1:3000 answers. Two agents that both serve there
// must each reach their own.
func portHelperMain() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	const addr = "127.0.0.1:3000"
	switch os.Args[1] {
	case "serve":
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "porthelper:", err)
			os.Exit(1)
		}
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(1)
			}
			io.WriteString(c, os.Args[2])
			c.Close()
		}
	case "get":
		for range 100 {
			c, err := net.Dial("tcp", addr)
			if err == nil {
				b, _ := io.ReadAll(c)
				fmt.Print(string(b))
				os.Exit(0)
			}
			time.Sleep(50 * time.Millisecond)
		}
		os.Exit(1)
	}
	os.Exit(2)
}
