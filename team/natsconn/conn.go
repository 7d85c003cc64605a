package natsconn

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Options say where and how to connect.
type Options struct {
	// URL is nats://HOST:PORT or tls://HOST:PORT, optionally with
	// user:password@ or token@; several, separated by commas, are tried in
	// turn (the servers of a cluster).
	URL string
	// Creds is a credentials file (a user JWT and its nkey seed).
	Creds string
	// TLSCA is a PEM file of the CAs that sign the server's certificate
	// (default: the system's).
	TLSCA string
	// Name is the connection's name, as the server's monitoring shows it.
	Name string
	// Timeout bounds the dial and the handshake (default 5 s).
	Timeout time.Duration
}

// Errors.
var (
	ErrClosed     = errors.New("nats: connection closed")
	ErrNoReply    = errors.New("nats: no responders")
	ErrTimeout    = errors.New("nats: timeout")
	ErrBadSubject = errors.New("nats: invalid subject")
	ErrSlow       = errors.New("nats: a subscriber fell behind and lost messages")
)

// maxControlLine bounds a protocol line (INFO can be long).
const maxControlLine = 64 << 10

// Conn is one connection to a NATS server. Its methods are safe for
// concurrent use.
type Conn struct {
	nc   net.Conn
	info serverInfo

	wmu sync.Mutex // guards bw
	bw  *bufio.Writer

	mu       sync.Mutex // guards the fields below
	subs     map[uint64]*Sub
	sid      uint64
	pongs    []chan struct{}
	inbox    string // _INBOX.<random>.
	inboxSub *Sub
	waiting  map[string]chan *Msg
	reqN     uint64
	err      error
	done     chan struct{}
}

type serverInfo struct {
	ServerID     string `json:"server_id"`
	Version      string `json:"version"`
	Headers      bool   `json:"headers"`
	MaxPayload   int64  `json:"max_payload"`
	TLSRequired  bool   `json:"tls_required"`
	AuthRequired bool   `json:"auth_required"`
	Nonce        string `json:"nonce"`
}

type connectMsg struct {
	Verbose      bool   `json:"verbose"`
	Pedantic     bool   `json:"pedantic"`
	TLSRequired  bool   `json:"tls_required"`
	Name         string `json:"name,omitempty"`
	Lang         string `json:"lang"`
	Version      string `json:"version"`
	Protocol     int    `json:"protocol"`
	Headers      bool   `json:"headers"`
	NoResponders bool   `json:"no_responders"`
	Echo         bool   `json:"echo"`
	User         string `json:"user,omitempty"`
	Pass         string `json:"pass,omitempty"`
	Token        string `json:"auth_token,omitempty"`
	JWT          string `json:"jwt,omitempty"`
	Nkey         string `json:"nkey,omitempty"`
	Sig          string `json:"sig,omitempty"`
}

// Connect dials the server (the first of o.URL's that answers, starting
// at a random one), upgrades to TLS when either side asks for it,
// authenticates and waits for the server to accept the connection.
func Connect(ctx context.Context, o Options) (*Conn, error) {
	urls := strings.Split(o.URL, ",")
	start := 0
	if len(urls) > 1 {
		var b [1]byte
		rand.Read(b[:])
		start = int(b[0]) % len(urls)
	}
	var errs []error
	for i := range urls {
		one := o
		one.URL = strings.TrimSpace(urls[(start+i)%len(urls)])
		c, err := connectOne(ctx, one)
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

func connectOne(ctx context.Context, o Options) (*Conn, error) {
	u, err := url.Parse(o.URL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("nats: bad URL %q", o.URL)
	}
	useTLS := false
	switch u.Scheme {
	case "nats", "":
	case "tls":
		useTLS = true
	default:
		return nil, fmt.Errorf("nats: URL %q: want nats:// or tls://", o.URL)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "4222")
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(dctx, "tcp", host)
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	deadline, _ := dctx.Deadline()
	nc.SetDeadline(deadline)
	c := &Conn{nc: nc, subs: map[uint64]*Sub{}, waiting: map[string]chan *Msg{}, done: make(chan struct{})}
	br := bufio.NewReaderSize(nc, 32<<10)
	if err := c.handshake(&br, u, o, useTLS); err != nil {
		nc.Close()
		if c.nc != nc {
			c.nc.Close()
		}
		return nil, err
	}
	c.nc.SetDeadline(time.Time{})
	var rnd [12]byte
	rand.Read(rnd[:])
	c.inbox = "_INBOX." + hex.EncodeToString(rnd[:]) + "."
	go c.readLoop(br)
	sub, err := c.subscribe(c.inbox+"*", c.deliverReply)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.inboxSub = sub
	return c, nil
}

// handshake reads INFO, upgrades to TLS, sends CONNECT and PING and
// waits for PONG (or the server's -ERR).
func (c *Conn) handshake(brp **bufio.Reader, u *url.URL, o Options, useTLS bool) error {
	br := *brp
	line, err := readLine(br)
	if err != nil {
		return fmt.Errorf("nats: reading INFO: %w", err)
	}
	op, rest, _ := strings.Cut(line, " ")
	if !strings.EqualFold(op, "INFO") || json.Unmarshal([]byte(rest), &c.info) != nil {
		return fmt.Errorf("nats: the server did not start with INFO: %q", truncate(line))
	}
	if c.info.TLSRequired || useTLS {
		cfg := &tls.Config{ServerName: u.Hostname(), MinVersion: tls.VersionTLS12}
		if o.TLSCA != "" {
			pem, err := os.ReadFile(o.TLSCA)
			if err != nil {
				return fmt.Errorf("nats: TLS CA: %w", err)
			}
			cfg.RootCAs = x509.NewCertPool()
			if !cfg.RootCAs.AppendCertsFromPEM(pem) {
				return fmt.Errorf("nats: TLS CA %s: no certificate in it", o.TLSCA)
			}
		}
		tc := tls.Client(c.nc, cfg)
		if err := tc.Handshake(); err != nil {
			return fmt.Errorf("nats: TLS: %w", err)
		}
		c.nc = tc
		br = bufio.NewReaderSize(tc, 32<<10)
		*brp = br
	}
	cm := connectMsg{TLSRequired: c.info.TLSRequired || useTLS, Name: o.Name, Lang: "go-sandbox", Version: "1",
		Protocol: 1, Headers: true, NoResponders: true, Echo: true}
	if u.User != nil {
		if pass, ok := u.User.Password(); ok {
			cm.User, cm.Pass = u.User.Username(), pass
		} else {
			cm.Token = u.User.Username()
		}
	}
	if o.Creds != "" {
		jwt, seed, err := readCreds(o.Creds)
		if err != nil {
			return err
		}
		cm.JWT, cm.Sig = jwt, signNonce(seed, c.info.Nonce)
		if jwt == "" {
			cm.Nkey = publicNkey(seed.Public().(ed25519.PublicKey))
		}
	}
	js, _ := json.Marshal(cm)
	c.bw = bufio.NewWriterSize(c.nc, 32<<10)
	c.bw.WriteString("CONNECT ")
	c.bw.Write(js)
	c.bw.WriteString("\r\nPING\r\n")
	if err := c.bw.Flush(); err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	for {
		line, err := readLine(br)
		if err != nil {
			return fmt.Errorf("nats: waiting for the server to accept: %w", err)
		}
		switch op, rest, _ := strings.Cut(line, " "); strings.ToUpper(op) {
		case "PONG":
			return nil
		case "+OK", "INFO":
		case "PING":
			c.bw.WriteString("PONG\r\n")
			c.bw.Flush()
		case "-ERR":
			return fmt.Errorf("nats: the server refused the connection: %s", strings.Trim(rest, "' "))
		default:
			return fmt.Errorf("nats: unexpected %q during the handshake", truncate(line))
		}
	}
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "..."
	}
	return s
}

// readLine reads one CRLF-terminated protocol line, without it.
func readLine(br *bufio.Reader) (string, error) {
	var b []byte
	for {
		part, isPrefix, err := br.ReadLine()
		if err != nil {
			return "", err
		}
		b = append(b, part...)
		if len(b) > maxControlLine {
			return "", errors.New("nats: protocol line too long")
		}
		if !isPrefix {
			return string(b), nil
		}
	}
}

// Err is why the connection ended (nil while it lives).
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Done is closed when the connection ends.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Close ends the connection.
func (c *Conn) Close() error {
	c.fail(ErrClosed)
	return nil
}

// fail ends the connection with err (the first error wins).
func (c *Conn) fail(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	subs := c.subs
	c.subs = map[uint64]*Sub{}
	pongs := c.pongs
	c.pongs = nil
	close(c.done)
	c.mu.Unlock()
	c.nc.Close()
	for _, s := range subs {
		s.end()
	}
	for _, p := range pongs {
		close(p)
	}
}

// ServerVersion is the server's version, as its INFO said.
func (c *Conn) ServerVersion() string { return c.info.Version }

// write sends protocol bytes built by f, under the write lock, and
// flushes them.
func (c *Conn) write(f func(w *bufio.Writer)) error {
	if err := c.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	f(c.bw)
	if err := c.bw.Flush(); err != nil {
		c.fail(fmt.Errorf("nats: write: %w", err))
		return c.Err()
	}
	return nil
}

// validSubject: tokens of printable characters without blanks,
// separated by dots; wildcards allowed when wild.
func validSubject(s string, wild bool) bool {
	if s == "" || len(s) > 1024 {
		return false
	}
	for _, tok := range strings.Split(s, ".") {
		if tok == "" {
			return false
		}
		if !wild && (tok == "*" || tok == ">") {
			return false
		}
		for i := 0; i < len(tok); i++ {
			if tok[i] <= ' ' || tok[i] == 0x7f {
				return false
			}
		}
	}
	return true
}

// Publish sends data (and hdr, when not empty) to subject, with reply as
// its reply subject ("" for none).
func (c *Conn) Publish(subject, reply string, hdr Header, data []byte) error {
	if !validSubject(subject, false) || reply != "" && !validSubject(reply, false) {
		return fmt.Errorf("%w: %q", ErrBadSubject, subject)
	}
	if c.info.MaxPayload > 0 && int64(len(data)) > c.info.MaxPayload {
		return fmt.Errorf("nats: %d bytes is more than the server's maximum payload (%d)", len(data), c.info.MaxPayload)
	}
	return c.write(func(w *bufio.Writer) {
		if len(hdr) == 0 {
			w.WriteString("PUB " + subject + " ")
			if reply != "" {
				w.WriteString(reply + " ")
			}
			w.WriteString(strconv.Itoa(len(data)) + "\r\n")
		} else {
			h := hdr.encode()
			w.WriteString("HPUB " + subject + " ")
			if reply != "" {
				w.WriteString(reply + " ")
			}
			w.WriteString(strconv.Itoa(len(h)) + " " + strconv.Itoa(len(h)+len(data)) + "\r\n")
			w.Write(h)
		}
		w.Write(data)
		w.WriteString("\r\n")
	})
}

// Flush waits until the server has processed everything sent before it
// (a PING's PONG).
func (c *Conn) Flush(ctx context.Context) error {
	ch := make(chan struct{})
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.pongs = append(c.pongs, ch)
	c.mu.Unlock()
	if err := c.write(func(w *bufio.Writer) { w.WriteString("PING\r\n") }); err != nil {
		return err
	}
	select {
	case <-ch:
		return c.Err()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Msg is a message received.
type Msg struct {
	Subject string
	Reply   string
	Header  Header
	Data    []byte
	// Status and Description are the status line of a message the
	// server made (503 no responders, 404 no messages, 408 timeout, ...).
	Status      int
	Description string
}

// Sub is a subscription.
type Sub struct {
	c       *Conn
	sid     uint64
	subject string
	deliver func(*Msg)
	ch      chan *Msg
	mu      sync.Mutex
	ended   bool
	slow    bool
}

// Subscribe delivers the messages of subject (wildcards allowed) to a
// channel of room buffered messages; a subscriber that falls further
// behind loses messages and Sub.Err says so.
func (c *Conn) Subscribe(subject string, room int) (*Sub, error) {
	if room <= 0 {
		room = 256
	}
	s := &Sub{ch: make(chan *Msg, room)}
	s.deliver = func(m *Msg) {
		select {
		case s.ch <- m:
		default:
			s.slow = true // under s.mu: see readLoop
		}
	}
	return s, c.register(s, subject)
}

func (c *Conn) subscribe(subject string, deliver func(*Msg)) (*Sub, error) {
	s := &Sub{deliver: deliver}
	return s, c.register(s, subject)
}

// register sends SUB for s.
func (c *Conn) register(s *Sub, subject string) error {
	if !validSubject(subject, true) {
		return fmt.Errorf("%w: %q", ErrBadSubject, subject)
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	c.sid++
	s.c, s.sid, s.subject = c, c.sid, subject
	c.subs[s.sid] = s
	c.mu.Unlock()
	return c.write(func(w *bufio.Writer) {
		w.WriteString("SUB " + subject + " " + strconv.FormatUint(s.sid, 10) + "\r\n")
	})
}

// C is the subscription's messages; it is closed when the subscription
// or the connection ends.
func (s *Sub) C() <-chan *Msg { return s.ch }

// Err reports whether the subscriber lost messages.
func (s *Sub) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.slow {
		return ErrSlow
	}
	return nil
}

// Unsubscribe ends the subscription.
func (s *Sub) Unsubscribe() error {
	s.c.mu.Lock()
	_, ok := s.c.subs[s.sid]
	delete(s.c.subs, s.sid)
	s.c.mu.Unlock()
	if !ok {
		return nil
	}
	s.end()
	return s.c.write(func(w *bufio.Writer) {
		w.WriteString("UNSUB " + strconv.FormatUint(s.sid, 10) + "\r\n")
	})
}

func (s *Sub) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ended {
		s.ended = true
		if s.ch != nil {
			close(s.ch)
		}
	}
}

// readLoop reads the server's protocol until the connection ends.
func (c *Conn) readLoop(br *bufio.Reader) {
	for {
		line, err := readLine(br)
		if err != nil {
			c.fail(fmt.Errorf("nats: read: %w", err))
			return
		}
		op, rest, _ := strings.Cut(line, " ")
		switch strings.ToUpper(op) {
		case "MSG", "HMSG":
			m, sid, err := readMsg(br, strings.ToUpper(op) == "HMSG", rest)
			if err != nil {
				c.fail(err)
				return
			}
			c.mu.Lock()
			s := c.subs[sid]
			c.mu.Unlock()
			if s != nil {
				s.mu.Lock() // end closes the channel under it: never a send on a closed one
				if !s.ended {
					s.deliver(m)
				}
				s.mu.Unlock()
			}
		case "PING":
			c.write(func(w *bufio.Writer) { w.WriteString("PONG\r\n") })
		case "PONG":
			c.mu.Lock()
			var p chan struct{}
			if len(c.pongs) > 0 {
				p, c.pongs = c.pongs[0], c.pongs[1:]
			}
			c.mu.Unlock()
			if p != nil {
				close(p)
			}
		case "+OK", "INFO":
		case "-ERR":
			msg := strings.Trim(rest, "' ")
			if strings.HasPrefix(strings.ToLower(msg), "permissions violation") {
				continue // one refused subject: the connection stays
			}
			c.fail(fmt.Errorf("nats: server error: %s", msg))
			return
		default:
			c.fail(fmt.Errorf("nats: unexpected %q from the server", truncate(line)))
			return
		}
	}
}

// readMsg reads a MSG or HMSG whose arguments are args.
func readMsg(br *bufio.Reader, headers bool, args string) (*Msg, uint64, error) {
	f := strings.Fields(args)
	want := 3
	if headers {
		want = 4
	}
	if len(f) != want && len(f) != want+1 {
		return nil, 0, fmt.Errorf("nats: bad message line %q", truncate(args))
	}
	m := &Msg{Subject: f[0]}
	sid, err := strconv.ParseUint(f[1], 10, 64)
	if err != nil {
		return nil, 0, fmt.Errorf("nats: bad message line %q", truncate(args))
	}
	if len(f) == want+1 {
		m.Reply = f[2]
	}
	total, err := strconv.Atoi(f[len(f)-1])
	hlen := 0
	if headers {
		hlen, err = strconv.Atoi(f[len(f)-2])
	}
	if err != nil || total < 0 || hlen < 0 || hlen > total || total > 64<<20 {
		return nil, 0, fmt.Errorf("nats: bad message sizes %q", truncate(args))
	}
	buf := make([]byte, total+2)
	if _, err := io.ReadFull(br, buf); err != nil {
		return nil, 0, fmt.Errorf("nats: read: %w", err)
	}
	if !bytes.HasSuffix(buf, []byte("\r\n")) {
		return nil, 0, errors.New("nats: a message does not end with CRLF")
	}
	if headers {
		if m.Header, m.Status, m.Description, err = decodeHeader(buf[:hlen]); err != nil {
			return nil, 0, err
		}
	}
	m.Data = buf[hlen:total]
	return m, sid, nil
}
