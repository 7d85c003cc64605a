package main

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sandbox-dev/sandbox/audit"
	"github.com/sandbox-dev/sandbox/connector/approver"
	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/remote"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/connector/watch"
	"github.com/sandbox-dev/sandbox/team"
	"github.com/sandbox-dev/sandbox/team/natsconn"
	"github.com/sandbox-dev/sandbox/team/relay"
	"github.com/spf13/cobra"
)

// natsFlags are team mode's connection flags (docs/TEAM.md).
type natsFlags struct {
	url, creds, tlsCA, org string
}

func (n *natsFlags) bind(cmd *cobra.Command, what string) {
	f := cmd.Flags()
	f.StringVar(&n.url, "nats", "", what+" through NATS JetStream at `URL` (team mode: nats://HOST:PORT or tls://...)")
	f.StringVar(&n.creds, "creds", "", "NATS credentials `FILE` (a user JWT and nkey seed, or a seed)")
	f.StringVar(&n.tlsCA, "tls-ca", "", "PEM `FILE` of the CAs that sign the NATS server's certificate")
	f.StringVar(&n.org, "org", "default", "the organisation's name in the subjects")
}

func (n *natsFlags) dial(ctx context.Context) (*natsconn.Conn, error) {
	return natsconn.Connect(ctx, natsconn.Options{URL: n.url, Creds: n.creds, TLSCA: n.tlsCA, Name: "sandbox"})
}

type relayOptions struct {
	nats     natsFlags
	host     string
	otlp     string
	replicas int
	dirs     []string
	err      io.Writer
}

func newRelayCmd() *cobra.Command {
	opts := &relayOptions{}
	cmd := &cobra.Command{
		Use:   "relay [DIR...] --nats URL [--creds FILE] [--tls-ca FILE] [--org ORG] [--host HOST]",
		Short: "Team mode: carry this machine's requests to NATS and carry out the signed decisions that come back",
		Long: `relay serves the folders named (default: the one here) until it is stopped:
it publishes each new request (what the local approvers show, the policy's
reasons recomputed here), carries out a decision made on another machine only
when it is signed by an approver key the folder's accepted policy trusts for
that request (docs/TEAM.md), through the same claim, audit and grant jail as
every approver, and publishes each outcome and the folder's audit records.
Local approval goes on whether NATS answers or not; the relay connects again
by itself.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dirs, opts.err = args, cmd.ErrOrStderr()
			return runRelay(cmd.Context(), opts)
		},
	}
	opts.nats.bind(cmd, "relay")
	cmd.Flags().StringVar(&opts.host, "host", "", "this machine's name in the subjects (default: the host name)")
	cmd.Flags().IntVar(&opts.replicas, "replicas", 1, "replicas of the streams it creates (3 on a three-node cluster)")
	cmd.Flags().StringVar(&opts.otlp, "otlp", "", "also export every audit record as an OpenTelemetry log to this OTLP/HTTP `URL` (a collector's /v1/logs)")
	return cmd
}

func runRelay(ctx context.Context, opts *relayOptions) error {
	if opts.nats.url == "" {
		return usageErrorf("relay: --nats URL is required")
	}
	host := opts.host
	if host == "" {
		host, _ = os.Hostname()
	}
	log := slog.New(slog.NewTextHandler(opts.err, &slog.HandlerOptions{Level: slog.LevelInfo}))
	r := &relay.Relay{Org: relay.Token(opts.nats.org), Host: relay.Token(host), Log: log}
	if opts.otlp != "" {
		if u, err := url.Parse(opts.otlp); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageErrorf("invalid argument --otlp %q: want an http(s) URL", opts.otlp)
		}
		r.OTLP = &relay.OTLP{URL: opts.otlp}
	}
	dirs := opts.dirs
	if len(dirs) == 0 {
		dirs = []string{""}
	}
	seen := map[string]string{}
	for _, d := range dirs {
		f, err := folder.Resolve(d, nil)
		if err != nil {
			return err
		}
		env, err := openApprover(f, approver.SurfaceRelay, log)
		if err != nil {
			return err
		}
		defer env.Close()
		project := relay.Token(filepath.Base(f.Root))
		if other, ok := seen[project]; ok {
			return fmt.Errorf("relay: %s and %s would both be project %q: serve them from two relays with different --host", other, f.Root, project)
		}
		seen[project] = f.Root
		st := env.st
		memo := store.NewMemo(log) // a policy load per decision otherwise
		r.Folders = append(r.Folders, &relay.Folder{Root: f.Root, Project: project, Queue: env.q, Approver: env.ap,
			Policy:    func() (*policy.Engine, error) { e, _, err := memo.Load(f, st); return e, err },
			OpenAudit: func(after uint64) (relay.AuditReader, error) { return audit.NewReader(f, st, after) }})
		fmt.Fprintf(opts.err, "sandbox relay: %s as %s.%s.%s\n", f.Root, r.Org, r.Host, project)
	}
	err := r.Run(ctx, opts.nats.dial, opts.replicas)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// remoteView is a request on NATS as list --nats --json prints it: the
// local list's fields and where it waits.
type remoteView struct {
	ID        string    `json:"id"`
	Kind      string    `json:"kind"`
	State     string    `json:"state"`
	Summary   string    `json:"summary"`
	Created   time.Time `json:"created"`
	Hash      string    `json:"hash"`
	Source    string    `json:"source,omitempty"`
	Agent     string    `json:"agent,omitempty"`
	Session   string    `json:"session,omitempty"`
	Org       string    `json:"org"`
	Host      string    `json:"host"`
	Project   string    `json:"project"`
	Reasons   []string  `json:"reasons,omitempty"`
	Truncated bool      `json:"truncated,omitempty"`
}

func runListNATS(ctx context.Context, n *natsFlags, asJSON bool, out io.Writer) error {
	c, err := n.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	reqs, err := relay.Pending(ctx, c, relay.Token(n.org))
	if err != nil {
		return err
	}
	views := make([]remoteView, 0, len(reqs))
	for _, r := range reqs {
		views = append(views, remoteView{ID: r.ID, Kind: string(r.Kind), State: "pending", Summary: r.Summary, Created: r.Created,
			Hash: r.Hash, Source: r.Source, Agent: r.Agent, Session: r.Session, Org: r.Org, Host: r.Host, Project: r.Project,
			Reasons: r.Reasons, Truncated: r.Truncated})
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(views)
	}
	if len(views) == 0 {
		fmt.Fprintln(out, "nothing pending on NATS")
		return nil
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "HOST/PROJECT\tID\tKIND\tWHAT")
	for _, v := range views {
		fmt.Fprintf(tw, "%s/%s\t%s\t%s\t%s\n", display.EscapeLine(v.Host), display.EscapeLine(v.Project), v.ID, v.Kind, display.EscapeLine(v.Summary))
	}
	return tw.Flush()
}

// decideNATS signs the user's decision on a request published on NATS
// and waits for its machine's relay to carry it out. An approval names
// the hash it approves (--hash), or on a terminal shows the whole request
// first and asks.
func decideNATS(ctx context.Context, n *natsFlags, id, verdict, reason, hash string, in io.Reader, out, errw io.Writer) error {
	if err := approver.RefuseNonHuman(); err != nil {
		return err
	}
	dir, err := userstate.DefaultDir()
	if err != nil {
		return err
	}
	priv, err := team.LoadKey(dir)
	if err != nil {
		return err
	}
	c, err := n.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	r, err := relay.Find(ctx, c, relay.Token(n.org), id)
	if err != nil {
		return err
	}
	if verdict == team.Approve {
		switch {
		case hash != "" && hash != r.Hash:
			return &exitError{code: exitFailure, msg: fmt.Sprintf("%s: its content hash is %s, not the %s you were shown: nothing approved", r.ID, r.Hash, hash)}
		case hash == "" && !isTerminalReader(in):
			return usageErrorf("approve --nats: --hash H is required off a terminal (list --nats --json prints it)")
		case hash == "":
			showRemote(out, r)
			fmt.Fprintf(out, "Approve %s on %s/%s? [y/N] ", r.ID, r.Host, r.Project)
			line, _ := bufio.NewReader(in).ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
				return &exitError{code: exitFailure, msg: "not approved"}
			}
		}
	}
	// the name it gives itself (user@host); the relay shows the name the
	// folder's policy gives the key
	fmt.Fprintf(errw, "sandbox: %s %s on %s/%s; waiting for its relay to carry it out\n", verdict, r.ID, r.Host, r.Project)
	write, flush := watch.LiveOutput(errw)
	live := false
	res, lost, err := relay.DecideAndFollow(ctx, c, priv, r, verdict, reason, queue.LocalUser(), 15*time.Minute,
		func(stream string, p []byte) { live = true; write(stream, p) })
	flush()
	if errors.Is(err, relay.ErrRefused) {
		return &exitError{code: exitFailure, msg: err.Error()}
	}
	if err != nil {
		return err
	}
	if !live || lost {
		io.WriteString(out, display.Escape(res.Output))
	}
	code := "-"
	if res.ExitCode != nil {
		code = fmt.Sprint(*res.ExitCode)
	}
	fmt.Fprintf(errw, "sandbox: %s: %s by %s (exit %s)\n", r.ID, res.Decision, display.EscapeLine(res.Approver), code)
	if res.Decision != "approved" && verdict == team.Approve || res.Decision != "denied" && verdict == team.Deny {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("%s ended %s, not as decided here (another approver was first)", r.ID, res.Decision)}
	}
	return nil
}

// runWatchNATS is `sandbox watch --nats`: the requests of every machine
// the credentials reach, decided with this user's approver key.
func runWatchNATS(ctx context.Context, n *natsFlags, opts *watchOptions) error {
	src, err := openBoard(ctx, n, nil)
	if err != nil {
		return err
	}
	return watch.RunRemote(ctx, watch.RemoteConfig{Where: src.where(), As: team.PublicKey(src.priv), Source: src,
		In: opts.in, Out: opts.out, Plain: opts.plain})
}

// boardSource is team mode for the approvers (remote.Source): the
// relay's board of every machine's requests, and decisions signed with
// this user's key. It runs until ctx ends.
type boardSource struct {
	*relay.Board
	n    *natsFlags
	priv ed25519.PrivateKey
}

func openBoard(ctx context.Context, n *natsFlags, log *slog.Logger) (*boardSource, error) {
	if err := approver.RefuseNonHuman(); err != nil {
		return nil, err
	}
	dir, err := userstate.DefaultDir()
	if err != nil {
		return nil, err
	}
	priv, err := team.LoadKey(dir)
	if err != nil {
		return nil, err
	}
	b := &boardSource{Board: &relay.Board{Org: relay.Token(n.org), Dial: n.dial, Log: log}, n: n, priv: priv}
	go b.Run(ctx)
	return b, nil
}

func (b *boardSource) where() string {
	return fmt.Sprintf("organisation %s at %s", relay.Token(b.n.org), b.n.url)
}

func (b *boardSource) Pending() []remote.Request {
	reqs := b.Board.Pending()
	out := make([]remote.Request, len(reqs))
	for i, r := range reqs {
		out[i] = remote.Request{Org: r.Org, Host: r.Host, Project: r.Project, ID: r.ID, Hash: r.Hash, Kind: string(r.Kind),
			Summary: r.Summary, Display: r.Display, Truncated: r.Truncated, Reasons: r.Reasons, Agent: r.Agent,
			Source: r.Source, Session: r.Session, Created: r.Created}
	}
	return out
}

func (b *boardSource) Decide(ctx context.Context, shown remote.Request, verdict, reason string, onOutput func(string, []byte)) (remote.Outcome, error) {
	c, err := b.Conn()
	if err != nil {
		return remote.Outcome{}, err
	}
	// the decision names the request as it was shown: its hash
	r := relay.Request{Org: shown.Org, Host: shown.Host, Project: shown.Project, ID: shown.ID, Hash: shown.Hash, Truncated: shown.Truncated}
	res, lost, err := relay.DecideAndFollow(ctx, c, b.priv, r, verdict, reason, queue.LocalUser(), 15*time.Minute, onOutput)
	if err != nil {
		return remote.Outcome{}, err
	}
	return remote.Outcome{Decision: string(res.Decision), Approver: res.Approver, Reason: res.Reason,
		ExitCode: res.ExitCode, Output: res.Output, Lost: lost}, nil
}

// showRemote prints the whole request as published: its display, the
// reasons the relay's policy gave, and what its writer claimed.
func showRemote(w io.Writer, r relay.Request) {
	fmt.Fprintf(w, "request %s on %s/%s (org %s), hash %s\n", r.ID, display.EscapeLine(r.Host), display.EscapeLine(r.Project), display.EscapeLine(r.Org), r.Hash)
	for _, why := range r.Reasons {
		fmt.Fprintf(w, "  policy: %s\n", display.EscapeLine(why))
	}
	fmt.Fprintf(w, "  said by its writer (unverified): agent %q, source %q\n", display.EscapeLine(r.Agent), display.EscapeLine(r.Source))
	fmt.Fprintln(w, display.Escape(r.Display))
	if r.Truncated {
		fmt.Fprintln(w, "[cut: approve it on its machine, where it is shown whole]")
	}
}

// runAuditVerifyNATS verifies each folder's chain as the team's audit
// stream holds it (relay.VerifyAudit): exit 1 when one fails.
func runAuditVerifyNATS(ctx context.Context, opts *auditVerifyOptions) error {
	c, err := opts.nats.dial(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	chains, err := relay.VerifyAudit(ctx, c, relay.Token(opts.nats.org), tokenOrEmpty(opts.host), tokenOrEmpty(opts.project))
	if err != nil {
		return err
	}
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(chains); err != nil {
			return err
		}
	}
	bad := 0
	for _, ch := range chains {
		if !opts.json {
			state := "OK"
			if !ch.Report.OK {
				state = "FAILED: " + display.EscapeLine(ch.Report.FirstBad.String())
			}
			fmt.Fprintf(opts.out, "%s/%s: %d records, %s\n", display.EscapeLine(ch.Host), display.EscapeLine(ch.Project), ch.Report.Records, state)
		}
		if !ch.Report.OK {
			bad++
		}
	}
	if len(chains) == 0 {
		fmt.Fprintln(opts.err, "sandbox: no audit records on NATS for that organisation, host and project")
	}
	if bad > 0 {
		return &exitError{code: exitAuditBad, msg: fmt.Sprintf("%d of %d audit chains on NATS FAILED verification", bad, len(chains))}
	}
	fmt.Fprintln(opts.err, "sandbox: chains verified without the machines' keys: the links and the sequence (each machine's `audit verify` checks its HMACs)")
	return nil
}

func tokenOrEmpty(s string) string {
	if s == "" {
		return ""
	}
	return relay.Token(s)
}
