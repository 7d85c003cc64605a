package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/serve"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/spf13/cobra"
)

type serveOptions struct {
	dir         dirFlag
	dirs        []string
	addr        string
	allowRemote bool
	tlsCert     string
	tlsKey      string
	nats        natsFlags
	out, err    io.Writer
}

func newServeCmd() *cobra.Command {
	opts := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve [DIR...] [--addr 127.0.0.1:0] [--allow-remote --tls-cert F --tls-key F]",
		Short: "Approve or deny requests from a browser or over REST (one or many folders)",
		Long: `serve is the approver dashboard: a web page, a REST API and a WebSocket of
live events for one or more folders. What you approve there runs in this
process, as with sandbox watch. Its first line on stdout is the address to
open, with a one-time sign-in code: http://127.0.0.1:PORT/#code=CODE (the
page trades it for a credential it keeps in memory; the API token for your
own tools is kept, 0600, in the per-user state directory). It listens on loopback
only, unless --allow-remote is given with --tls-cert and --tls-key. Without a
folder named it serves the repository's inbox: its own folder and every
agent's worktree (sandbox agents), each request tagged with its agent.
With --nats it serves team mode instead: the requests of every machine the
NATS credentials reach, decided with your approver key (docs/TEAM.md).
See docs/DASHBOARD.md.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dirs, opts.out, opts.err = args, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return runServe(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	f := cmd.Flags()
	f.StringVar(&opts.addr, "addr", "127.0.0.1:0", "address to listen on (port 0: any free port)")
	f.BoolVar(&opts.allowRemote, "allow-remote", false, "listen beyond loopback (needs --tls-cert and --tls-key)")
	f.StringVar(&opts.tlsCert, "tls-cert", "", "TLS certificate (PEM) to serve https")
	f.StringVar(&opts.tlsKey, "tls-key", "", "TLS private key (PEM)")
	opts.nats.bind(cmd, "serve every machine's requests (team mode, docs/TEAM.md)")
	return cmd
}

func runServe(ctx context.Context, opts *serveOptions) error {
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGHUP, syscall.SIGTERM, os.Interrupt)
	defer stop()
	logger := stderrLogger(opts.err)
	tlsCfg, err := opts.check()
	if err != nil {
		return err
	}
	if opts.nats.url != "" {
		return runServeNATS(ctx, opts, tlsCfg, logger)
	}
	folders, err := watchFolders(&watchOptions{dir: opts.dir, dirs: opts.dirs})
	if err != nil {
		return err
	}
	st, err := userstate.Open(true)
	if err != nil {
		return err
	}
	var cfg serve.Config
	if (&watchOptions{dir: opts.dir, dirs: opts.dirs}).inbox() {
		if cfg.Inbox, err = inboxSource(folders[0], st); err != nil {
			return err
		}
		cfg.Open = func(f folder.Folder) (serve.Folder, func(), error) { return openServeFolder(f, logger) }
		cfg.Notify = inboxNotifier(folders[0], st, logger)
		cfg.Notify.Log = logger
		defer cfg.Notify.Wait()
		folders = nil
	}
	for _, f := range folders {
		sf, closeFn, err := openServeFolder(f, logger)
		if err != nil {
			return err
		}
		defer closeFn()
		cfg.Folders = append(cfg.Folders, sf)
	}
	ln, err := net.Listen("tcp", listenAddr(opts.addr))
	if err != nil {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("serve: %v", err)}
	}
	defer ln.Close()
	return serveOn(ctx, opts, ln, tlsCfg, st, cfg, logger)
}

// runServeNATS is `sandbox serve --nats`: the dashboard over every
// machine's requests, decided with this user's approver key.
func runServeNATS(ctx context.Context, opts *serveOptions, tlsCfg *tls.Config, logger *slog.Logger) error {
	if len(opts.dirs) > 0 || opts.dir.dir != "" {
		return usageErrorf("serve --nats serves NATS, not folders: leave out the folders")
	}
	st, err := userstate.Open(true)
	if err != nil {
		return err
	}
	src, err := openBoard(ctx, &opts.nats, logger)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listenAddr(opts.addr))
	if err != nil {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("serve: %v", err)}
	}
	defer ln.Close()
	cfg := serve.Config{Team: &serve.Team{Where: src.where(), As: team.PublicKey(src.priv), Source: src}}
	return serveOn(ctx, opts, ln, tlsCfg, st, cfg, logger)
}

// openServeFolder opens f's approver for serve and marks f as watched
// until the returned function runs.
func openServeFolder(f folder.Folder, logger *slog.Logger) (serve.Folder, func(), error) {
	env, err := openApprover(f, approver.SurfaceServe, logger)
	if err != nil {
		return serve.Folder{}, nil, err
	}
	release := holdApprover(f, logger)
	return serve.Folder{Approver: env.ap, Audit: env.audit, Review: env.src}, func() { release(); env.Close() }, nil
}

// serveOn runs the dashboard on ln until ctx ends.
func serveOn(ctx context.Context, opts *serveOptions, ln net.Listener, tlsCfg *tls.Config, st *userstate.State, cfg serve.Config, logger *slog.Logger) error {
	token, err := serve.NewToken()
	if err != nil {
		return err
	}
	cfg.Addr, cfg.Token, cfg.State, cfg.Logger = ln.Addr().String(), token, st, logger
	cfg.Policies = servePolicies{st: st}
	cfg.TLS = tlsCfg != nil
	if tlsCfg != nil {
		cfg.ExtraHosts = certHosts(tlsCfg)
	}
	srv, err := serve.New(ctx, cfg)
	if err != nil {
		return err
	}
	path, remove, err := serve.SaveToken(st, cfg.Addr, token)
	if err != nil {
		srv.Close(context.Background())
		return err
	}
	defer remove()
	code, err := srv.NewCode()
	if err != nil {
		srv.Close(context.Background())
		return err
	}
	fmt.Fprintf(opts.out, "%s/#code=%s\n", baseURL(cfg), code)
	if f, ok := opts.out.(interface{ Sync() error }); ok {
		f.Sync()
	}
	if cfg.Team != nil {
		fmt.Fprintf(opts.err, "sandbox serve: team mode, %s; token kept in %s; Ctrl-C to stop\n", cfg.Team.Where, path)
	} else {
		fmt.Fprintf(opts.err, "sandbox serve: %d folder(s); token kept in %s; Ctrl-C to stop\n", srv.FolderCount(), path)
	}
	return serveHTTP(ctx, ln, tlsCfg, srv, logger)
}

func serveHTTP(ctx context.Context, ln net.Listener, tlsCfg *tls.Config, srv *serve.Server, logger *slog.Logger) error {
	hs := srv.HTTPServer(tlsCfg, serve.DefaultLimits)
	ln = serve.LimitListener(ln, serve.DefaultLimits.MaxConns)
	errc := make(chan error, 1)
	go func() {
		if tlsCfg != nil {
			errc <- hs.ServeTLS(ln, "", "")
		} else {
			errc <- hs.Serve(ln)
		}
	}()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	// Executions first (the broker kills them and records their result),
	// which also ends the approvals and streams waiting on them; then the
	// connections.
	sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if cerr := srv.Close(sctx); cerr != nil {
		logger.Warn("executions still running at exit", "err", cerr)
	}
	hctx, hcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer hcancel()
	if hs.Shutdown(hctx) != nil {
		hs.Close()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// check validates the flags: loopback only unless --allow-remote, which
// needs a certificate and key. It loads them.
func (o *serveOptions) check() (*tls.Config, error) {
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return nil, usageErrorf("--tls-cert and --tls-key go together")
	}
	if o.allowRemote && o.tlsCert == "" {
		return nil, usageErrorf("%w", serve.ErrRemoteNeedsTLS)
	}
	if !o.allowRemote && !isLoopback(o.addr) {
		return nil, usageErrorf("%w", serve.ErrNotLoopback)
	}
	if o.tlsCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
	if err != nil {
		return nil, &exitError{code: exitFailure, msg: fmt.Sprintf("serve: %v", err)}
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// isLoopback reports whether addr's host is a loopback address (or
// "localhost"); an empty host means every interface.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(listenAddr(addr))
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// listenAddr maps "localhost" to 127.0.0.1 (never to whatever a resolver
// says).
func listenAddr(addr string) string {
	if host, port, err := net.SplitHostPort(addr); err == nil && host == "localhost" {
		return net.JoinHostPort("127.0.0.1", port)
	}
	return addr
}

// certHosts are the DNS names and IP addresses in the certificate: the
// Host headers accepted besides the bound address.
func certHosts(c *tls.Config) []string {
	var out []string
	for _, cert := range c.Certificates {
		leaf := cert.Leaf
		if leaf == nil && len(cert.Certificate) > 0 {
			leaf, _ = x509.ParseCertificate(cert.Certificate[0])
		}
		if leaf == nil {
			continue
		}
		out = append(out, leaf.DNSNames...)
		for _, ip := range leaf.IPAddresses {
			out = append(out, ip.String())
		}
	}
	return out
}

// baseURL is the address to open: the bound one, or the certificate's
// first name when bound to every interface.
func baseURL(cfg serve.Config) string {
	scheme := "http"
	if cfg.TLS {
		scheme = "https"
	}
	host, port, _ := net.SplitHostPort(cfg.Addr)
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() && len(cfg.ExtraHosts) > 0 {
		host = cfg.ExtraHosts[0]
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}
