package hook

import (
	"fmt"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/checkpoint"
	"github.com/sandbox-dev/sandbox/connector/policy"
)

// Checkpointer keeps what a call is about to delete or overwrite
// (connector/checkpoint's Store). Take returns nil when nothing in the
// project was named.
type Checkpointer interface {
	Take(req checkpoint.Request) (*checkpoint.Checkpoint, error)
}

// checkpoint keeps, before an allowed call runs, the files it is about to
// delete or overwrite: a Write's paths, or what an allowed shell command
// writes (checkpoint.ForShell). Files left out on purpose (too large, a
// dependency directory) are recorded in the checkpoint and logged; an
// error means the store could not be written.
func (c *Core) checkpoint(call *Call) error {
	if c.Checkpoints == nil || (call.Action != Shell && call.Action != Write) {
		return nil
	}
	req := checkpoint.Request{
		Session: call.Session, ToolUseID: call.ToolUseID, Tool: call.Tool, Command: Subject(call),
	}
	if call.Action == Shell {
		req.Cwd = call.Cwd
		req.Paths, req.WholeTree = checkpoint.ForShell(call.Script, call.Cwd)
	} else {
		req.Paths = call.Paths
	}
	if len(req.Paths) == 0 && !req.WholeTree {
		return nil
	}
	ck, err := c.Checkpoints.Take(req)
	if err != nil {
		return err
	}
	if ck != nil {
		c.Logger().Info("checkpoint", "id", ck.ID, "files", ck.Files, "added", ck.Added, "not_kept", ck.NotKeptCount)
	}
	return nil
}

// uncheckpointed turns an allowed shell call whose checkpoint failed into
// an escalation: the human sees that what it deletes could not be kept.
// It fails closed without refusing work a human may still want done.
func uncheckpointed(d policy.Decision, err error) policy.Decision {
	d.Decision = policy.Escalate
	d.Reasons = append(append([]string(nil), d.Reasons...),
		fmt.Sprintf("sandbox could not keep a checkpoint of what this command deletes or overwrites (%s)", oneLineErr(err)))
	return d
}

func oneLineErr(err error) string { return strings.ReplaceAll(err.Error(), "\n", " ") }
