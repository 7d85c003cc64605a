package userstate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// jailProbeName is the file where `sandbox init` and `sandbox doctor`
// record whether the project jail can be built on this machine. The hook
// runs on every tool call and cannot afford the probe (namespaces,
// Landlock, cgroups: milliseconds); it reads this one line instead.
const jailProbeName = "jail-probe"

// maxJailProbe bounds the file the hook reads.
const maxJailProbe = 4096

// JailProbe is the recorded result of probing the jail's layers.
type JailProbe struct {
	// OK: the jail can be built (Landlock and the mount namespace work),
	// so connector mode runs allowed commands in it.
	OK bool
	// Degraded are the layers that are missing but not essential; the
	// jailed commands accept them (run's --allow-degraded).
	Degraded []string
	// Why says, when not OK, what is missing.
	Why string
}

// WriteJailProbe records p (a temporary file renamed into place).
func (s *State) WriteJailProbe(p JailProbe) error {
	line := "no " + oneLine(p.Why) + "\n"
	if p.OK {
		line = "ok " + strings.Join(p.Degraded, ",") + "\n"
	}
	path := filepath.Join(s.Dir, jailProbeName)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(line), 0o600); err != nil {
		return fmt.Errorf("recording the jail probe: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("recording the jail probe: %w", err)
	}
	return nil
}

// ErrNoJailProbe: nothing was recorded yet (`sandbox init` or `sandbox
// doctor` records it).
var ErrNoJailProbe = errors.New("the jail was never probed on this machine")

// ReadJailProbe reads what WriteJailProbe recorded.
func (s *State) ReadJailProbe() (JailProbe, error) {
	f, err := os.Open(filepath.Join(s.Dir, jailProbeName))
	if errors.Is(err, os.ErrNotExist) {
		return JailProbe{}, ErrNoJailProbe
	}
	if err != nil {
		return JailProbe{}, fmt.Errorf("jail probe: %w", err)
	}
	defer f.Close()
	buf := make([]byte, maxJailProbe)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	verdict, rest, _ := strings.Cut(line, " ")
	switch verdict {
	case "ok":
		p := JailProbe{OK: true}
		if rest != "" {
			p.Degraded = strings.Split(rest, ",")
		}
		return p, nil
	case "no":
		return JailProbe{Why: rest}, nil
	}
	return JailProbe{}, fmt.Errorf("jail probe: unreadable record %q", line)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
