//go:build linux

package live

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/hookd"
)

// fakeServer answers each request with answer(req) and records it.
func fakeServer(t *testing.T, answer func(*hookd.Request) string) (int, chan *hookd.Request) {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan *hookd.Request, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			q, err := hookd.ReadRequest(c)
			if err == nil {
				got <- q
				c.Write([]byte(answer(q)))
			}
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, got
}

// The served form (a hook server runs the command): bash sends its pid,
// the project, its directory, the script with the directory trap and
// exactly its exported variables (values with newlines and quotes
// intact, unexported ones left out), then takes the server's exit status
// and directory as the command's; "fallback" runs the plain form instead
// (a jail of its own), and a server that goes away mid-run is an error,
// never a second run.
func TestServedForm(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	fake := filepath.Join(dir, "sandbox")
	if err := os.WriteFile(fake, []byte("#!"+bash+"\necho plain-form-ran\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `echo "it's" '$(id)'`
	run := func(port int) (string, int) {
		j := jailer{exe: fake, root: dir, port: port}
		form, err := j.Wrap(script, dir)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(bash, "-c", form+`; echo "status=$? dir=$PWD"`)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "SERVED_VAR=a\nb \"q\" $x", "EMPTY="}
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return string(out), cmd.ProcessState.ExitCode()
	}

	port, got := fakeServer(t, func(*hookd.Request) string { return "7\x00" + sub + "\x00" })
	out, _ := run(port)
	if want := "status=7 dir=" + sub + "\n"; out != want {
		t.Errorf("served: %q, want %q", out, want)
	}
	q := <-got
	if q.Root != dir || q.Dir != dir || q.Script != cwdTrap+script || q.PID <= 0 {
		t.Errorf("request %+v", q)
	}
	if !slices.Contains(q.Env, "SERVED_VAR=a\nb \"q\" $x") || !slices.Contains(q.Env, "EMPTY=") {
		t.Errorf("exported variables missing: %q", q.Env)
	}
	for _, kv := range q.Env {
		if strings.HasPrefix(kv, "__sandbox") || strings.HasPrefix(kv, "BASH_") {
			t.Errorf("a variable the shell did not export was sent: %q", kv)
		}
	}

	port, _ = fakeServer(t, func(*hookd.Request) string { return hookd.Fallback + "\x00\x00" })
	if out, _ := run(port); !strings.Contains(out, "plain-form-ran") || !strings.Contains(out, "status=3") {
		t.Errorf("fallback: %q", out)
	}

	port, _ = fakeServer(t, func(*hookd.Request) string { return "" })
	if out, _ := run(port); strings.Contains(out, "plain-form-ran") || !strings.Contains(out, "status=125") ||
		!strings.Contains(out, "hook server stopped") {
		t.Errorf("a server gone mid-run: %q", out)
	}

	ln, _ := net.Listen("tcp4", "127.0.0.1:0") // a port nobody serves
	closed := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if out, _ := run(closed); !strings.Contains(out, "plain-form-ran") {
		t.Errorf("no server: %q", out)
	}
}
