// Package team is team mode's trust: the approver keys (ed25519, one per
// human, the private half in the per-user state dir), the decisions they
// sign, and the checks a machine makes before it executes a decision that
// came from elsewhere (NATS JetStream, through `sandbox relay`): signed
// by a key the folder's accepted policy trusts (policy.Approver), for
// exactly this request (id, content hash, machine, project), within that
// key's scope, and fresh. The servers in between can delay or drop a
// request, never approve one: they hold no key.
//
// Nothing here imports a NATS client: the hook, the shims and `check`
// must not pay for team mode (cmd/sandbox's dependency test).
package team
