//go:build linux

package launcher

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// supervisorEnv carries a supervisorJob: the test binary re-executed as
// a `sandbox run` supervisor (for the tests that kill the supervisor or
// run it as another user).
const supervisorEnv = "SANDBOX_TEST_SUPERVISOR"

type supervisorJob struct {
	Project string   `json:"project"`
	Argv    []string `json:"argv"`
	Disable []Layer  `json:"disable"`
	Allow   []Layer  `json:"allow"`
	Limits  Limits   `json:"limits"`
}

func runSupervisor(raw string) int {
	var job supervisorJob
	if err := json.Unmarshal([]byte(raw), &job); err != nil {
		fmt.Fprintln(os.Stderr, "supervisor job:", err)
		return 2
	}
	f, err := folder.New(job.Project)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	env := []string{}
	for _, kv := range os.Environ() {
		if len(kv) < len(supervisorEnv) || kv[:len(supervisorEnv)] != supervisorEnv {
			env = append(env, kv)
		}
	}
	res, err := Run(context.Background(), Options{
		Folder: f, Argv: job.Argv, Env: append(env, probeEnv+"=1"),
		Disable: job.Disable, AllowDegraded: job.Allow, Limits: job.Limits,
		Stdout: os.Stdout, Stderr: os.Stderr, ForwardSignals: true,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisor:", err)
		return 125
	}
	return res.Code
}
