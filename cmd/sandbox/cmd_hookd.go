package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/adapter"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/hook/live"
	"github.com/sandbox-dev/sandbox/connector/hookd"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
	"github.com/spf13/cobra"
)

// The hook server (`sandbox hookd`) answers an agent's hooks over HTTP
// (Claude Code's hooks of type "http": no process per tool call) and runs
// the allowed shell commands it rewrote into the project jail for the
// agent's shell, which asks over a loopback connection bash opens itself
// (connector/hookd): the jail then costs no `sandbox run` process either.
// One server serves one project for one user, on the port
// hookd.Port(root, uid) that `sandbox init --claude-http` wrote into the
// agent's settings. The agent's SessionStart hook (`sandbox hookd
// --ensure`) starts it when it does not answer, and it ends when every
// agent that started a session with it has exited.

type hookdOptions struct {
	dir    dirFlag
	port   int
	ensure bool
	agent  string
}

func newHookdCmd() *cobra.Command {
	opts := &hookdOptions{}
	cmd := &cobra.Command{
		Use:   "hookd",
		Short: "Serve a project's agent hooks over HTTP and run their allowed commands in jails, without a process per call",
		Long: "Serves the hooks that `sandbox init --claude-http` installs, on 127.0.0.1 at the project's port,\n" +
			"and runs the allowed commands those hooks rewrite into the project jail for the agent's shell.\n" +
			"With --ensure (the agent's SessionStart hook): start the server unless it answers, then answer\n" +
			"the session's start event read on stdin through it.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.ensure {
				return ensureHookd(cmd.Context(), opts, cmd.InOrStdin(), cmd.OutOrStdout())
			}
			return serveHookd(cmd.Context(), opts)
		},
	}
	opts.dir.bind(cmd)
	f := cmd.Flags()
	f.IntVar(&opts.port, "port", 0, "loopback port to serve the hooks on (default: the project's, as init wrote it)")
	f.BoolVar(&opts.ensure, "ensure", false, "start the server unless it answers, then pass the event on stdin to it (SessionStart)")
	f.StringVar(&opts.agent, "agent", "claude", "with --ensure: the agent whose event stdin holds")
	return cmd
}

func (o *hookdOptions) folder() (folder.Folder, int, error) {
	f, err := o.dir.resolve(nil)
	if err != nil {
		return f, 0, err
	}
	port := o.port
	if port == 0 {
		port = hookd.Port(f.Root, os.Getuid())
	}
	if port < 1 || port > 65535 {
		return f, 0, usageErrorf("invalid argument --port %d", port)
	}
	return f, port, nil
}

// hookdServer is one running server.
type hookdServer struct {
	root    string
	runPort int
	exe     string
	log     *slog.Logger
	// memo keeps the folder's engine (and the shims) from one call and
	// run to the next while their files stay as they were
	memo *launcher.BusMemo

	mu       sync.Mutex
	owners   map[int]bool // agents' pids that started a session here
	busy     int          // requests and runs in progress
	lastUsed time.Time
}

// hookdIdle ends a server that no agent registered with, once nothing
// asked it anything for this long.
const hookdIdle = 12 * time.Hour

func serveHookd(ctx context.Context, o *hookdOptions) error {
	f, port, err := o.folder()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		if hookdAnswers(port, f.Root) {
			return nil // already served
		}
		return fmt.Errorf("hookd: %w", err)
	}
	runLn, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		ln.Close()
		return fmt.Errorf("hookd: %w", err)
	}
	s := &hookdServer{root: f.Root, runPort: runLn.Addr().(*net.TCPAddr).Port, exe: exe,
		log:    slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})),
		owners: map[int]bool{}, lastUsed: time.Now()}
	s.memo = launcher.NewBusMemo(s.log)
	s.log.Info("hookd: serving", "project", s.root, "hooks", ln.Addr().String(), "runs", runLn.Addr().String())
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, hookd.HealthLine(s.root))
	})
	mux.HandleFunc("POST /owner", s.handleOwner)
	mux.HandleFunc("POST /hook/{agent}", s.handleHook)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: time.Minute,
		MaxHeaderBytes: 64 << 10, BaseContext: func(net.Listener) context.Context { return ctx }}
	launcher.KeepSpares(true) // each run's jail init is started ahead of it
	defer launcher.KeepSpares(false)
	go srv.Serve(ln)
	go s.acceptRuns(ctx, runLn)
	defer runLn.Close()
	defer srv.Close()
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if s.done() {
				return nil
			}
		}
	}
}

// done reports whether the server may end: nothing in progress, and
// every agent that registered gone (or none ever did and it idled).
func (s *hookdServer) done() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy > 0 {
		return false
	}
	if len(s.owners) == 0 {
		return time.Since(s.lastUsed) > hookdIdle
	}
	for pid := range s.owners {
		if processAlive(pid) {
			return false
		}
		delete(s.owners, pid)
	}
	return true
}

func (s *hookdServer) enter() func() {
	s.mu.Lock()
	s.busy++
	s.lastUsed = time.Now()
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.busy--
		s.lastUsed = time.Now()
		s.mu.Unlock()
	}
}

func (s *hookdServer) handleOwner(w http.ResponseWriter, r *http.Request) {
	pid, err := strconv.Atoi(r.URL.Query().Get("pid"))
	if err != nil || pid <= 1 {
		http.Error(w, "bad pid", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.owners[pid] = true
	s.mu.Unlock()
}

// fromAgent tells an agent's hook request from one a web page in the
// user's browser could make (any page may post to a loopback port, and
// an event it planted would become a request a human may approve): no
// Origin (browsers send one with every cross-origin post; agents do
// not), a loopback Host (not a name rebound to 127.0.0.1), and a JSON
// content type, which a page cannot send cross-origin without a
// preflight this server never answers.
func fromAgent(r *http.Request) bool {
	if r.Header.Get("Origin") != "" {
		return false
	}
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil || host != "127.0.0.1" && host != "localhost" {
		return false
	}
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(ct), "application/json")
}

// maxHookEvent bounds an event (a Write's content travels in it).
const maxHookEvent = 64 << 20

func (s *hookdServer) handleHook(w http.ResponseWriter, r *http.Request) {
	if !fromAgent(r) {
		http.Error(w, "not an agent's hook request", http.StatusForbidden)
		return
	}
	defer s.enter()()
	in, err := io.ReadAll(io.LimitReader(r.Body, maxHookEvent+1))
	if err != nil || len(in) > maxHookEvent {
		http.Error(w, "event unreadable or too large", http.StatusRequestEntityTooLarge)
		return
	}
	out := s.answerHook(r.Context(), r.PathValue("agent"), in)
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// answerHook answers one event as `sandbox hook AGENT` would, in this
// process. A refusal (the command hook's exit 2 with a message) becomes
// the agent's refusal in JSON, which an HTTP hook must answer with.
func (s *hookdServer) answerHook(ctx context.Context, agent string, in []byte) []byte {
	a, ok := adapter.Lookup(agent)
	if !ok || a.Hook == nil {
		return refusalJSON(in, fmt.Sprintf("hook: unknown agent %q", agent))
	}
	h := a.Hook
	open := hookOpener(a, live.Options{Exe: s.exe, RunPort: s.runPort, Log: s.log, Policies: s.memo.Policies})
	var out, errb bytes.Buffer
	code, err := h.Run(ctx, bytes.NewReader(in), &out, &errb, open)
	if err != nil {
		out.Reset()
		errb.Reset()
		code = h.Refuse(&out, &errb, err)
	}
	if code == 0 {
		if out.Len() == 0 {
			return []byte("{}")
		}
		return out.Bytes()
	}
	msg := strings.TrimSpace(errb.String())
	if msg == "" {
		msg = fmt.Sprintf("sandbox hook: exit status %d", code)
	}
	return refusalJSON(in, msg)
}

// refusalJSON is Claude Code's refusal of a tool call as an HTTP hook
// answers it: a PreToolUse denial with its reason, for other events a
// block with the reason.
func refusalJSON(event []byte, reason string) []byte {
	var ev struct {
		Event string `json:"hook_event_name"`
	}
	_ = json.Unmarshal(event, &ev)
	var v any
	if ev.Event == "PreToolUse" {
		v = map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}}
	} else {
		v = map[string]any{"decision": "block", "reason": reason}
	}
	b, _ := json.Marshal(v)
	return b
}

func (s *hookdServer) acceptRuns(ctx context.Context, ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond) // EMFILE and the like
			continue
		}
		go s.serveRun(ctx, c.(*net.TCPConn))
	}
}

// serveRun runs one shell's command in the project jail, as the plain
// rewritten form's `sandbox run --quiet --shared-tmp --dir ROOT --cwd-fd
// 3 -- bash -c SCRIPT` would, with the shell's own output, directory and
// exported variables. The run ends when the command does, or when the
// shell goes away (its connection closes).
func (s *hookdServer) serveRun(ctx context.Context, c *net.TCPConn) {
	defer c.Close()
	defer s.enter()()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	q, err := hookd.ReadRequest(c)
	if errors.Is(err, hookd.ErrVersion) {
		// what another binary's shell form sends: let it finish sending
		// (an unread rest would reset the connection under the answer)
		c.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
		io.Copy(io.Discard, io.LimitReader(c, hookd.MaxRequest))
		hookd.WriteFallback(c)
		return
	}
	if err != nil {
		s.log.Warn("hookd: run request", "err", err)
		hookd.WriteAnswer(c, exitNotRun, "")
		return
	}
	c.SetReadDeadline(time.Time{})
	stdout, stderr, err := hookd.OpenPeer(c, q.PID)
	switch {
	case errors.Is(err, hookd.ErrFallback):
		hookd.WriteFallback(c)
		return
	case err != nil:
		s.log.Warn("hookd: run request refused", "pid", q.PID, "err", err)
		hookd.WriteAnswer(c, exitNotRun, "")
		return
	}
	defer stdout.Close()
	defer stderr.Close()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // the shell sends nothing more: a read ends when it goes away
		var b [1]byte
		c.Read(b[:])
		cancel()
	}()
	var cwd string
	var answered sync.Once
	sent := -1
	answer := func(code int) {
		answered.Do(func() {
			sent = code
			hookd.WriteAnswer(c, code, cwd)
		})
	}
	opts := &runOptions{quiet: true, sharedTmp: true, argv: []string{"bash", "-c", q.Script},
		stdout: stdout, stderr: stderr, memo: s.memo,
		served: &servedRun{wd: q.Dir, env: q.Env, cwd: func(dir string) { cwd = dir }, answer: answer}}
	opts.dir.dir = q.Root
	if st, err := userstate.Open(false); err == nil {
		if p, err := st.ReadJailProbe(); err == nil {
			opts.allowDegraded = p.Degraded
		}
	}
	err = runRun(rctx, opts)
	code := exitCode(err)
	if err != nil && !errors.As(err, new(*exitError)) {
		if rctx.Err() == nil { // else the shell went away: nobody reads this
			fmt.Fprintf(stderr, "sandbox: %v\n", err)
		}
		if code == exitFailure {
			code = exitNotRun
		}
	}
	answer(code) // unless answered at the command's end
	s.log.Info("hookd: ran", "pid", q.PID, "dir", q.Dir, "code", sent)

}

// servedRun is what a served run takes from its client instead of from
// this process (runOptions.served).
type servedRun struct {
	wd  string           // the shell's directory
	env []string         // the shell's exported variables
	cwd func(dir string) // receives the directory the command's shell ended in
	// answer, when set, answers the client as soon as the command has
	// ended and nothing of the jail runs any more (after cwd), before the
	// jail's teardown; the run goes on to its end
	answer func(code int)
}

// dir is the jail's working directory: the shell's, when it lies in the
// project, else the project's root (as projectCwd).
func (s *servedRun) dir(f folder.Folder) string {
	wd := s.wd
	if real, err := filepath.EvalSymlinks(wd); err == nil {
		wd = real
	}
	if !folder.Within(f.Root, wd) {
		return f.Root
	}
	return wd
}

// hookdAnswers reports whether the project's server answers on port.
func hookdAnswers(port int, root string) bool {
	cl := http.Client{Timeout: 2 * time.Second}
	resp, err := cl.Get("http://127.0.0.1:" + strconv.Itoa(port) + "/health")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode == http.StatusOK && string(b) == hookd.HealthLine(root)
}

// ensureHookd starts the project's server unless it answers, registers
// the agent that runs this hook with it, and passes the event on stdin
// to it, printing its answer (the session brief).
func ensureHookd(ctx context.Context, o *hookdOptions, stdin io.Reader, stdout io.Writer) error {
	f, port, err := o.folder()
	if err != nil {
		return err
	}
	if !hookdAnswers(port, f.Root) {
		if err := startHookd(f.Root, port); err != nil {
			return err
		}
	}
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	cl := http.Client{Timeout: 30 * time.Second}
	if pid := agentPID(); pid > 1 {
		if resp, err := cl.Post(base+"/owner?pid="+strconv.Itoa(pid), "text/plain", nil); err == nil {
			resp.Body.Close()
		}
	}
	in, err := io.ReadAll(io.LimitReader(stdin, maxHookEvent))
	if err != nil || len(bytes.TrimSpace(in)) == 0 {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/hook/"+o.agent, bytes.NewReader(in))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := cl.Do(req)
	if err != nil {
		return fmt.Errorf("hookd: %w", err)
	}
	defer resp.Body.Close()
	_, err = io.Copy(stdout, resp.Body)
	return err
}

// startHookd starts the server in a session of its own and waits until
// it answers.
func startHookd(root string, port int) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	null, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	logf := null
	if dir, err := userstate.DefaultDir(); err == nil {
		flags := os.O_WRONLY | os.O_APPEND | os.O_CREATE
		if fi, err := os.Stat(hookdLog(dir, port)); err == nil && fi.Size() > maxHookdLog {
			flags |= os.O_TRUNC // a log of what the last servers did, not of every call ever
		}
		if f, err := os.OpenFile(hookdLog(dir, port), flags, 0o600); err == nil {
			defer f.Close()
			logf = f
		}
	}
	cmd := exec.Command(exe, "hookd", "--dir", root, "--port", strconv.Itoa(port))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = null, logf, logf
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("hookd: start the server: %w", err)
	}
	go cmd.Wait() // reaped while this process waits; it outlives us otherwise
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if hookdAnswers(port, root) {
			return nil
		}
	}
	return fmt.Errorf("hookd: the server on 127.0.0.1:%d did not answer (is the port taken? `sandbox hookd --dir %s` says why)", port, root)
}

// maxHookdLog is the size past which a starting server begins its log
// anew.
const maxHookdLog = 4 << 20

// hookdLog is the log of the server on port, in the per-user state dir.
func hookdLog(stateDir string, port int) string {
	return filepath.Join(stateDir, "hookd-"+strconv.Itoa(port)+".log")
}

// agentPID is the agent that runs this hook: the first ancestor that is
// not a shell (agents run command hooks through one).
func agentPID() int {
	pid := os.Getppid()
	for range 8 {
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
		if err != nil {
			return pid
		}
		switch strings.TrimSpace(string(comm)) {
		case "sh", "bash", "dash", "zsh", "fish", "ksh":
		default:
			return pid
		}
		ppid, ok := parentOf(pid)
		if !ok || ppid <= 1 {
			return pid
		}
		pid = ppid
	}
	return pid
}

// parentOf reads a process's parent from /proc/PID/stat.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
