package main

import (
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/policy"
	"github.com/sandbox-dev/sandbox/connector/userstate"
)

// servePolicies lets the dashboard show and accept pending policy
// changes exactly as `sandbox policy diff|accept` do.
type servePolicies struct {
	st *userstate.State
}

func (p servePolicies) Pending(f folder.Folder) (current, accepted []byte, changed bool, err error) {
	return policy.Pending(f, p.st)
}

func (p servePolicies) Accept(f folder.Folder, data []byte) error {
	return policy.Accept(f, p.st, data)
}

func (p servePolicies) Diff(accepted, current []byte) string {
	return policyDiff(accepted, current)
}
