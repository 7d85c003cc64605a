// natsd runs a NATS server with JetStream (the real nats-server, linked
// as a library) for the team-mode benchmark and manual trials: it prints
// its client URL on one line and serves until it is stopped.
//
//	go run ./hack/natsd [-port N] [-store DIR]
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

func main() {
	port := flag.Int("port", -1, "client port (-1: any free one)")
	store := flag.String("store", "", "JetStream's store dir (default: a temporary one)")
	flag.Parse()
	dir := *store
	if dir == "" {
		d, err := os.MkdirTemp("", "natsd-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "natsd:", err)
			os.Exit(1)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: *port, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "natsd:", err)
		os.Exit(1)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "natsd: the server did not start")
		os.Exit(1)
	}
	fmt.Println(s.ClientURL())
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	s.Shutdown()
	s.WaitForShutdown()
}
