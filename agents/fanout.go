package agents

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/sandbox-dev/sandbox/connector/atomicfile"
	"github.com/sandbox-dev/sandbox/connector/userstate"
	"github.com/sandbox-dev/sandbox/launcher"
	"go.yaml.in/yaml/v3"
)

// Task is one agent of a CI fan-out (tasks.yaml).
type Task struct {
	Name    string   `yaml:"name"`
	Agent   string   `yaml:"agent"`   // default claude
	Task    string   `yaml:"task"`    // the prompt of a known agent
	Base    string   `yaml:"base"`    // default HEAD
	Command []string `yaml:"command"` // instead of an agent: run as the agent
}

// maxTasks bounds one fan-out.
const maxTasks = 256

// ParseTasks reads tasks.yaml: `tasks:`, a list of Task, strictly.
func ParseTasks(data []byte) ([]Task, error) {
	var doc struct {
		Tasks []Task `yaml:"tasks"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("tasks: %w: %v", ErrBadTasks, err)
	}
	if len(doc.Tasks) == 0 || len(doc.Tasks) > maxTasks {
		return nil, fmt.Errorf("tasks: %w: want 1 to %d tasks, found %d", ErrBadTasks, maxTasks, len(doc.Tasks))
	}
	seen := map[string]bool{}
	for i, t := range doc.Tasks {
		if err := ValidName(t.Name); err != nil {
			return nil, fmt.Errorf("task %d: %w: %w", i+1, ErrBadTasks, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("task %d: %w: the name %s twice", i+1, ErrBadTasks, t.Name)
		}
		seen[t.Name] = true
		if (len(t.Command) == 0) == (t.Task == "") {
			return nil, fmt.Errorf("task %s: %w: give a task (for an agent) or a command, not both", t.Name, ErrBadTasks)
		}
	}
	return doc.Tasks, nil
}

// FleetReport is `sandbox agents run --ci --report`'s JSON.
type FleetReport struct {
	Version  int           `json:"version"`
	Folder   string        `json:"folder"`
	Started  time.Time     `json:"started"`
	Finished time.Time     `json:"finished"`
	Agents   []AgentReport `json:"agents"`
	Failed   int           `json:"failed"` // agents that failed (or did not start)
	Denied   int           `json:"denied"` // escalations denied or failed, over all agents
}

// AgentReport is one agent of a fan-out.
type AgentReport struct {
	Name        string                  `json:"name"`
	Agent       string                  `json:"agent"`
	Branch      string                  `json:"branch"`
	Base        string                  `json:"base"`
	Worktree    string                  `json:"worktree"`
	Outcome     State                   `json:"outcome"` // done, failed or stopped
	Exit        *int                    `json:"exit,omitempty"`
	Error       string                  `json:"error,omitempty"`
	Approved    int                     `json:"approved"`
	Denied      int                     `json:"denied"`
	Escalations []launcher.CIEscalation `json:"escalations"`
	Diffstat    Diffstat                `json:"diffstat"`
}

// AnyDenied reports whether an escalation of any agent was denied or
// could not be decided.
func (f *FleetReport) AnyDenied() bool { return f.Denied > 0 }

// WriteJSON writes the report atomically.
func (f *FleetReport) WriteJSON(path string) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'), 0o644)
}

// FanOutOptions is one `sandbox agents run --ci`.
type FanOutOptions struct {
	Tasks    []Task
	Parallel int
	State    *userstate.State
	Exe      string
	Out      io.Writer
}

// FanOut runs every task as a headless CI agent, at most Parallel at once,
// each in its own worktree and jail, and reports them all.
func (r *Registry) FanOut(ctx context.Context, o FanOutOptions) *FleetReport {
	rep := &FleetReport{Version: 1, Folder: r.Main.Root, Started: time.Now().UTC(), Agents: make([]AgentReport, len(o.Tasks))}
	sem := make(chan struct{}, max(o.Parallel, 1))
	var wg sync.WaitGroup
	var mu sync.Mutex // serialises what the agents print
	for i, t := range o.Tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			rep.Agents[i] = r.runTask(ctx, t, o, &mu)
		}()
	}
	wg.Wait()
	for _, a := range rep.Agents {
		if a.Outcome != Done {
			rep.Failed++
		}
		rep.Denied += len(a.Escalations) - a.Approved
	}
	rep.Finished = time.Now().UTC()
	return rep
}

func (r *Registry) runTask(ctx context.Context, t Task, o FanOutOptions, mu *sync.Mutex) AgentReport {
	var out bytes.Buffer
	defer func() {
		mu.Lock()
		io.Copy(o.Out, &out)
		mu.Unlock()
	}()
	sp, err := r.Spawn(ctx, SpawnOptions{Name: t.Name, Agent: t.Agent, Argv: t.Command, BaseRef: t.Base,
		Task: t.Task, Headless: true, CI: true, State: o.State, Exe: o.Exe, Out: &out})
	a := AgentReport{Name: t.Name, Agent: sp.Agent, Branch: sp.Branch, Base: sp.Base, Worktree: sp.Worktree,
		Outcome: Failed, Escalations: []launcher.CIEscalation{}}
	if err != nil {
		a.Error = err.Error()
		return a
	}
	rec, err := r.Wait(ctx, t.Name)
	if err != nil {
		a.Error = err.Error()
		return a
	}
	a.Outcome, a.Exit, a.Error = rec.State, rec.Exit, rec.Error
	a.Diffstat = r.Observe(ctx, rec, nil).Diffstat
	ci, err := r.readCIReport(t.Name)
	if err != nil {
		a.Error = strings.TrimPrefix(a.Error+"; "+err.Error(), "; ")
	} else {
		a.Escalations, a.Approved, a.Denied = ci.Escalations, ci.Approved, ci.Denied
	}
	say(&out, "agent %s: %s", t.Name, a.Outcome)
	return a
}

func (r *Registry) readCIReport(name string) (*launcher.CIReport, error) {
	b, err := os.ReadFile(r.CIReportPath(name))
	if err != nil {
		return nil, fmt.Errorf("%s: no CI report: %w", name, err)
	}
	var rep launcher.CIReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: CI report: %w", name, err)
	}
	if rep.Escalations == nil {
		rep.Escalations = []launcher.CIEscalation{}
	}
	return &rep, nil
}
