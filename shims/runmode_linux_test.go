//go:build linux

package shims_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/sandbox-dev/sandbox/connector/testenv"
	"github.com/sandbox-dev/sandbox/launcher"
)

// A push through the shim escalates, runs outside the jail once
// approved, and its output and exit code reach the caller; the same push
// run directly in the jail cannot write the repository.
func TestRunGitPushThroughTheShim(t *testing.T) {
	p := newRunProject(t, "")
	h := p.human(func(*queue.Request) verdict { return verdict{approve: true} })
	script := `/usr/bin/git push origin HEAD:refs/heads/direct; echo "direct=$?"
git push origin HEAD:refs/heads/main; echo "shim=$?"
git push origin refs/heads/missing; echo "failing=$?"`
	out, code := p.run(nil, "sh", "-c", script)
	if code != 0 {
		t.Fatalf("sandbox run exited %d:\n%s", code, out)
	}
	if m := regexp.MustCompile(`direct=(\d+)`).FindStringSubmatch(out); m == nil || m[1] == "0" {
		t.Errorf("a direct push from the jail succeeded:\n%s", out)
	}
	mustContain(t, "the run's output", out, "shim=0", "failing=1", "[new branch]      HEAD -> main",
		"src refspec refs/heads/missing does not match any")
	if refs := p.git("--git-dir", p.bare, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/main\n" {
		t.Errorf("bare repository refs %q, want only main", refs)
	}
	reqs := h.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the two shimmed pushes)", len(reqs))
	}
	for i, want := range [][]string{{"git", "push", "origin", "HEAD:refs/heads/main"}, {"git", "push", "origin", "refs/heads/missing"}} {
		r := reqs[i]
		if r.Kind != queue.KindShell || r.Source != queue.SourceShim || !slices.Equal(r.Shell.Argv, want) ||
			r.Cwd != p.f.Root || !strings.HasPrefix(r.Session, "run-") || r.Agent != "sh" {
			t.Errorf("request %d: %+v %+v", i, r, r.Shell)
		}
	}
}

// loopbackServer serves "hello from NAME" on 127.0.0.2 (not in the
// jail's NO_PROXY, so clients go through the proxy). It stands for a host
// of the network: a service on this machine is reached only through a
// rule that names it (the proxy refuses it outright otherwise), so the
// tests' policies name 127.0.0.2 (escalateLoopback2).
const escalateLoopback2 = "network:\n  escalate: [\"127.0.0.2\"]\n"

func loopbackServer(t *testing.T, name string, tls bool) (url string, port int) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.2:0")
	if err != nil {
		testenv.Skip(t, "no 127.0.0.2 here: "+err.Error())
	}
	srv := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "hello from %s", name)
	})}}
	if tls {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	t.Cleanup(srv.Close)
	return srv.URL, ln.Addr().(*net.TCPAddr).Port
}

func curl(url string) string {
	return `/usr/bin/curl -sk -w ' code=%{http_code}\n' ` + url + `/x; echo`
}

// An unlisted destination escalates: approved once it passes (plain HTTP
// and a CONNECT tunnel), denied it gets a 403 with the reason.
func TestRunCurlThroughTheProxyEscalates(t *testing.T) {
	p := newRunProject(t, "version: 1\n"+escalateLoopback2)
	urlA, portA := loopbackServer(t, "A", false)
	urlB, portB := loopbackServer(t, "B", false)
	urlC, portC := loopbackServer(t, "C", true)
	h := p.human(func(r *queue.Request) verdict {
		if r.Kind == queue.KindNetwork && r.Network.Port == portB {
			return verdict{reason: "not that one"}
		}
		return verdict{approve: true}
	})
	script := strings.Join([]string{curl(urlA), curl(urlA), curl(urlB), curl(urlC)}, "\n")
	out, code := p.run(nil, "sh", "-c", script)
	if code != 0 {
		t.Fatalf("sandbox run exited %d:\n%s", code, out)
	}
	if n := strings.Count(out, "hello from A code=200"); n != 2 {
		t.Errorf("A answered %d times, want 2:\n%s", n, out)
	}
	mustContain(t, "the run's output", out, "hello from C code=200", "not that one", "code=403")
	if strings.Contains(out, "hello from B") {
		t.Errorf("the denied destination was reached:\n%s", out)
	}
	var ports []int
	for _, r := range h.requests() {
		if r.Kind != queue.KindNetwork || r.Source != queue.SourceProxy || r.Network.Host != "127.0.0.2" {
			t.Errorf("request %+v %+v", r, r.Network)
			continue
		}
		ports = append(ports, r.Network.Port)
	}
	slices.Sort(ports)
	want := []int{portA, portB, portC}
	slices.Sort(want)
	if !slices.Equal(ports, want) {
		t.Errorf("network requests for ports %v, want %v (one per destination: the second call to A joins the first)", ports, want)
	}
}

func TestRunCIMode(t *testing.T) {
	urlA, portA := loopbackServer(t, "A", false)
	urlB, _ := loopbackServer(t, "B", false)
	policy := `version: 1
shell:
  allow: ["git status **"]
  escalate: ["git push **"]
ci:
  shell:
    approve: ["git push origin HEAD:refs/heads/ci"]
    deny: [{pattern: "git push origin HEAD:refs/heads/main", reason: "main is protected"}]
  network:
    approve: ["127.0.0.2:` + strconv.Itoa(portA) + `"]
` + escalateLoopback2
	p := newRunProject(t, policy)
	script := `git push origin HEAD:refs/heads/ci; echo "ci=$?"
git push origin HEAD:refs/heads/main; echo "main=$?"
git push origin HEAD:refs/heads/other; echo "other=$?"
` + curl(urlA) + "\n" + curl(urlB)
	report := t.TempDir() + "/report.json"
	out, code := p.run([]string{"--ci", "--report", report, "--fail-on-deny"}, "sh", "-c", script)
	if code != 4 {
		t.Errorf("exit %d, want 4 (--fail-on-deny):\n%s", code, out)
	}
	mustContain(t, "the run's output", out, "ci=0", "main=126", "main is protected", "other=126",
		"the policy's ci: section does not approve it", "`ci: shell: approve:`", "`ci: network: approve:`",
		"hello from A code=200", "code=403", "denied in CI mode", "CI summary: 5 escalation(s): 2 approved, 3 denied, 0 failed")
	if strings.Contains(out, "sandbox watch") {
		t.Errorf("CI mode told the agent to wait for a human:\n%s", out)
	}
	if refs := p.git("--git-dir", p.bare, "for-each-ref", "--format=%(refname)"); refs != "refs/heads/ci\n" {
		t.Errorf("bare repository refs %q, want only ci", refs)
	}
	var rep launcher.CIReport
	data, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(data, &rep) != nil {
		t.Fatalf("report: %v\n%s", err, data)
	}
	if rep.Approved != 2 || rep.Denied != 3 || len(rep.Escalations) != 5 || rep.ExitCode != 0 || rep.Command[0] != "sh" {
		t.Errorf("report %+v", rep)
	}
	outcomes := map[string]string{}
	for _, e := range rep.Escalations {
		outcomes[e.Kind+" "+e.Subject] = e.Outcome
	}
	for subject, want := range map[string]string{
		"shell git push origin HEAD:refs/heads/ci":    "approved",
		"shell git push origin HEAD:refs/heads/main":  "denied",
		"shell git push origin HEAD:refs/heads/other": "denied",
	} {
		if outcomes[subject] != want {
			t.Errorf("%s: %q, want %q (all: %v)", subject, outcomes[subject], want, outcomes)
		}
	}
	// Without --fail-on-deny the command's own status is the run's.
	if out, code := p.run([]string{"--ci"}, "sh", "-c", "git push origin HEAD:refs/heads/main; true"); code != 0 {
		t.Errorf("exit %d without --fail-on-deny:\n%s", code, out)
	}
}

// A shim still waiting when the run ends dies with the jail; the
// supervisor withdraws its request, so that nobody approves a command
// whose caller is gone.
func TestRunEndWithdrawsPendingShimRequests(t *testing.T) {
	p := newRunProject(t, "")
	out, code := p.run(nil, "sh", "-c", `git push origin HEAD:refs/heads/late & 
for i in $(seq 100); do [ -n "$(ls .sandbox/escalations/pending)" ] && break; sleep 0.05; done; exit 7`)
	if code != 7 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	sums, _ := p.q.List()
	if len(sums) != 1 || sums[0].Decision != queue.Withdrawn {
		t.Fatalf("requests after the run: %+v", sums)
	}
}

// `sandbox request` inside the jail (how the agent is told to ask when
// the jail refuses something) reaches the human through the bus like a
// shim: the per-user state it would use outside is hidden there. The
// approved command runs outside the jail, where it may write what the
// jail may not.
func TestRunSandboxRequestFromTheJail(t *testing.T) {
	p := newRunProject(t, "")
	outside := t.TempDir()
	h := p.human(func(r *queue.Request) verdict {
		return verdict{approve: r.Kind == queue.KindShell && r.Justification == "needs a file outside"}
	})
	target := filepath.Join(outside, "made")
	script := "touch " + target + " 2>/dev/null && echo jailed-wrote\n" +
		p.bin + " request --reason 'needs a file outside' -- touch " + target + "; echo request=$?"
	out, code := p.run(nil, "sh", "-c", script)
	if code != 0 {
		t.Fatalf("sandbox run exited %d:\n%s", code, out)
	}
	mustContain(t, "the run's output", out, "request=0")
	if strings.Contains(out, "jailed-wrote") {
		t.Fatalf("the jail let the write through itself:\n%s", out)
	}
	if _, err := os.Stat(target); err != nil {
		t.Errorf("the approved command did not run outside the jail: %v\n%s", err, out)
	}
	if n := len(h.requests()); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
}
