package approver

import (
	"fmt"
	"time"

	"github.com/sandbox-dev/sandbox/broker"
	"github.com/sandbox-dev/sandbox/connector/queue"
)

// applyWrite carries out an approved write or edit through the broker:
// atomically, never following a link the agent could have planted. The
// result names the file and the SHA-256 of what was written.
func (a *Approver) applyWrite(req *queue.Request) *queue.Result {
	p := req.Write
	if p == nil {
		return &queue.Result{Decision: queue.Failed, Reason: "bug: write request without a payload"}
	}
	started := time.Now()
	var out broker.WriteOutcome
	var err error
	stage := broker.StageIn(a.stagingDir())
	if p.Content != nil {
		out, err = broker.ApplyWrite(a.f.Root, p.Path, []byte(*p.Content), stage)
	} else {
		out, err = broker.ApplyEdits(a.f.Root, p.Path, brokerEdits(p.Edits), stage)
	}
	finished := time.Now()
	res := &queue.Result{Started: started.UTC(), Finished: finished.UTC(), DurationMS: finished.Sub(started).Milliseconds()}
	if err != nil {
		res.Decision, res.Reason = queue.Failed, err.Error()
		return res
	}
	code := 0
	verb := "wrote"
	if out.Created {
		verb = "created"
	}
	res.Decision, res.ExitCode, res.WrittenHash = queue.Approved, &code, out.SHA256
	res.Stdout = fmt.Sprintf("%s %s (%d bytes, sha256 %s)\n", verb, out.Path, out.Size, out.SHA256)
	return res
}

// stagingDir is where approved writes are staged: the queue's trusted
// staging directory (.sandbox/escalations/staging, 0700), which no jail
// can write, so that no jailed process can swap the staged file before it
// is renamed into place.
func (a *Approver) stagingDir() string { return a.f.Staging() }

func brokerEdits(edits []queue.Edit) []broker.Edit {
	out := make([]broker.Edit, len(edits))
	for i, e := range edits {
		out[i] = broker.Edit{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll}
	}
	return out
}
