// Package e2e runs the real agent CLIs (Claude Code, Codex) against a
// project initialised with `sandbox init`, offline: a scripted fake model
// (connector/fakemodel) on 127.0.0.1 plays the model, an egress trap
// catches any attempt to reach the internet, and a scripted approver
// drives the real `sandbox approve` and `sandbox deny` commands. The tests
// are its only content; in CI a missing client is a failure, not a skip.
package e2e
