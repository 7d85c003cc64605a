package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
	"github.com/spf13/cobra"
)

type doctorOptions struct {
	dir  dirFlag
	json bool
	out  io.Writer
}

// check is one line of the doctor's report.
type check struct {
	Area   string `json:"area"`
	Name   string `json:"name"`
	Status string `json:"status"` // ok, missing, degraded
	Detail string `json:"detail"`
}

const (
	statusOK       = "ok"
	statusMissing  = "missing"
	statusDegraded = "degraded"
)

func newDoctorCmd() *cobra.Command {
	opts := &doctorOptions{}
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Report what this machine enforces and whether this project's wiring works (exit 1 when broken)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.out = cmd.OutOrStdout()
			return runDoctor(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.json, "json", false, "print the report as JSON")
	opts.dir.bind(cmd)
	return cmd
}

func runDoctor(_ context.Context, opts *doctorOptions) error {
	var checks []check
	checks = append(checks, systemChecks()...)
	checks = append(checks, jailLayers()...)
	checks = append(checks, stateCheck())
	checks = append(checks, connectorChecks()...)
	checks = append(checks, agentChecks()...)
	checks = append(checks, projectChecks(opts.dir.dir)...)
	if opts.json {
		enc := json.NewEncoder(opts.out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(checks); err != nil {
			return err
		}
		return doctorExit(checks)
	}
	area := ""
	for _, c := range checks {
		if c.Area != area {
			area = c.Area
			fmt.Fprintf(opts.out, "%s\n", area)
		}
		fmt.Fprintf(opts.out, "  %-9s %-18s %s\n", c.Status, c.Name, c.Detail)
	}
	return doctorExit(checks)
}

func systemChecks() []check {
	detail := runtime.GOOS + "/" + runtime.GOARCH
	if rel, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		detail += ", kernel " + strings.TrimSpace(string(rel))
	}
	return []check{{Area: "system", Name: "os", Status: statusOK, Detail: detail}}
}

func stateCheck() check {
	c := check{Area: "state", Name: "per-user state"}
	dir, err := userstate.DefaultDir()
	if err != nil {
		c.Status, c.Detail = statusMissing, err.Error()
		return c
	}
	if _, err := userstate.OpenDir(dir, false); err != nil {
		c.Status, c.Detail = statusMissing, fmt.Sprintf("%s: not set up (run `sandbox init`): %v", dir, err)
		return c
	}
	c.Status, c.Detail = statusOK, dir
	return c
}

// agents are the coding agents sandbox knows how to wire, by executable.
var agents = []struct{ name, exe string }{
	{"Claude Code", "claude"},
	{"Codex", "codex"},
	{"Cursor", "cursor-agent"},
	{"Gemini CLI", "gemini"},
}

func agentChecks() []check {
	var out []check
	for _, a := range agents {
		c := check{Area: "agents", Name: a.exe}
		if p, err := exec.LookPath(a.exe); err == nil {
			c.Status, c.Detail = statusOK, a.name+" at "+p+"; `sandbox run` passes it "+
				strings.Join(launcher.AgentKeys(a.exe), ", ")+" and no other secret variable"
		} else {
			c.Status, c.Detail = statusMissing, a.name+" is not on PATH"
		}
		out = append(out, c)
	}
	return out
}
