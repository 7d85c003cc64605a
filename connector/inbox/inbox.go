// Package inbox is what the approvers (`sandbox watch`, `sandbox serve`)
// share to show every agent of one repository in one human inbox: the tag
// a folder's requests carry (the agent, worktree and branch they arrived
// from, known by the folder they arrived in and never by what a request
// says), the agent's state as the approver sees it, the folders a
// registry record may name, the key under which identical requests of
// several agents are decided once, "always for all agents", and the
// notification sent when an agent starts waiting for a human.
//
// It knows nothing of the registry itself: cmd/sandbox reads it (package
// agents) and hands the members over as a Source.
package inbox

import (
	"github.com/sandbox-dev/sandbox/connector/folder"
)

// MainName is the tag of the repository's own folder (MAIN).
const MainName = "main"

// States an approver shows per agent.
const (
	Running = "running"
	Waiting = "waiting" // it has requests pending for a human
	Idle    = "idle"
	Done    = "done"
	Failed  = "failed"
	Stopped = "stopped" // its supervisor is gone
)

// Tag says where a folder's requests come from. Every field is the
// trusted side's: the registry record (written by the orchestrator in the
// per-user state) and the folder itself.
type Tag struct {
	Agent    string `json:"agent"`              // MainName for MAIN
	Branch   string `json:"branch,omitempty"`   // sandbox/NAME
	Worktree string `json:"worktree,omitempty"` // the agent's folder
	State    string `json:"state,omitempty"`    // the registry's state; "" for MAIN
}

// IsMain reports whether t is the repository's own folder.
func (t Tag) IsMain() bool { return t.Agent == MainName }

// Member is one folder of a repository's inbox with its tag.
type Member struct {
	Folder folder.Folder
	Tag    Tag
}

// Status is the state an approver shows for an agent whose registry
// record says state and that has pending requests waiting for a human:
// an agent that runs and has one is "waiting"; one that ended (done,
// failed, stopped) keeps its state whatever is left in its queue.
func Status(state string, pending int) string {
	switch state {
	case Done, Failed, Stopped:
		return state
	}
	if pending > 0 {
		return Waiting
	}
	switch state {
	case "", "starting":
		return Running
	}
	return state
}
