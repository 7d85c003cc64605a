package launcher

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// prepareAgent readies the agent's home-directory configuration for the
// jail: the read-only names that are missing are created (an empty
// settings file, empty command and hook dirs), because the jail can
// protect only what exists and would otherwise be free to create them;
// and with the mount namespace, the agent's global config file gets a
// per-run copy.
func (r *run) prepareAgent(mountNS bool) error {
	lay := agentProfile(agentName(r.o)).layout(homeOf(r.o), baseEnv(r.o))
	if len(lay.Writable) > 0 {
		if _, err := os.Stat(lay.Writable[0]); err == nil {
			for _, s := range lay.Seeds {
				if err := plantSeed(s); err != nil {
					return err
				}
			}
		}
	}
	if lay.Global == "" || !mountNS {
		return nil
	}
	g, err := prepareGlobal(lay.Global, r.o.StateDir)
	if err != nil {
		return err
	}
	r.global = g
	return nil
}

// plantSeed creates s unless something is there already.
func plantSeed(s seed) error {
	if _, err := os.Lstat(s.path); !errors.Is(err, os.ErrNotExist) {
		return nil
	}
	var err error
	if s.dir {
		err = os.Mkdir(s.path, 0o700)
	} else {
		err = os.WriteFile(s.path, []byte(s.content), 0o600)
	}
	if err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("agent config %s: %w", s.path, err)
	}
	return nil
}

// mergeGlobal takes back from the jail's copy of the agent's global
// config what cannot run code (globalcopy.go), once the jail is gone.
func (r *run) mergeGlobal() {
	if r.global == nil {
		return
	}
	changed, err := r.global.merge()
	if err != nil {
		r.log.Warn("agent config not merged back", "file", r.global.orig, "err", err)
		if r.o.Stderr != nil {
			fmt.Fprintf(r.o.Stderr, "sandbox: %s: the jail's changes were not merged back: %v\n", r.global.orig, err)
		}
		return
	}
	r.log.Info("agent config merged back", "file", r.global.orig, "changed", changed)
}

// logPlan says, at Info level (sandbox run -v), what the jail gets: the
// agent's keys passed in, the variables dropped, what is hidden, what is
// read-only and the per-run copies.
func (r *run) logPlan(s *Spec) {
	if !r.log.Enabled(context.Background(), slog.LevelInfo) {
		return
	}
	_, dropped := ScrubbedEnv(baseEnv(r.o), envRules(r.o))
	r.log.Info("jail environment", "agent", agentName(r.o),
		"passed_keys", strings.Join(PassedKeys(baseEnv(r.o), envRules(r.o)), ","),
		"dropped", strings.Join(dropped, ","))
	r.log.Info("jail files", "hidden", strings.Join(existing(s.FS.Hidden), ","),
		"read_only", strings.Join(existing(s.FS.ReadOnly), ","),
		"copies", substitutes(s.FS.Substitutes))
}

func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); err == nil {
			out = append(out, p)
		}
	}
	return out
}

func substitutes(subs []jailspec.Substitute) string {
	var parts []string
	for _, s := range subs {
		parts = append(parts, s.Path+" (per-run copy "+s.Source+")")
	}
	return strings.Join(parts, ",")
}
