// Package natsconn is team mode's NATS client: the core protocol (INFO,
// CONNECT, PUB/HPUB, SUB/UNSUB, MSG/HMSG, PING/PONG) over TCP or TLS, with
// user and password, token or credentials-file (JWT and nkey seed)
// authentication, request and reply through one inbox subscription, and
// the JetStream API calls team mode uses (streams, publishes with
// acknowledgements and de-duplication ids, durable pull consumers,
// key-value buckets with create-only writes).
//
// It is ours, not the nats.go module, because every process of the one
// sandbox binary initialises every package the binary links: the NATS
// module and its dependencies would add about 2 MB to the binary and to
// the peak memory of every hook call, shim and check (docs/STARTUP.md,
// cmd/sandbox/deps_test.go), which must stay short. This package links
// nothing beyond the standard library. Its tests run it against the real
// nats-server, in-process.
//
// A Conn does not reconnect: its user (the relay) makes a new one when
// Err reports the old one gone, and carries on from JetStream's state.
package natsconn
