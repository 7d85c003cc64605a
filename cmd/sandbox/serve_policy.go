package main

import (
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy/store"
	"github.com/sandbox-dev/sandbox/connector/serve"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// servePolicies lets the dashboard show and accept pending policy
// changes exactly as `sandbox policy diff|accept` do.
type servePolicies struct {
	st *userstate.State
}

func (p servePolicies) Pending(f folder.Folder) (current, accepted []byte, changed bool, err error) {
	return store.Pending(f, p.st)
}

func (p servePolicies) Accept(f folder.Folder, data []byte) error {
	return store.Accept(f, p.st, data)
}

func (p servePolicies) Remembered(f folder.Folder) ([]serve.RememberedView, []string) {
	rem, warns := store.LoadRemembered(f, p.st)
	var out []serve.RememberedView
	for _, r := range rem {
		out = append(out, serve.RememberedView{ID: r.ID(), Trigger: string(r.Trigger), Tier: r.Tier.String(),
			Pattern: r.Pattern, By: r.By, Created: r.Created})
	}
	var ws []string
	for _, w := range warns {
		ws = append(ws, w.Message)
	}
	return out, ws
}

func (p servePolicies) Diff(accepted, current []byte) string {
	return policyDiff(accepted, current)
}
