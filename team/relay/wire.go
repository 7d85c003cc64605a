// Package relay is team mode's relay (`sandbox relay`): for each folder
// of this machine it mirrors the new requests to a JetStream stream,
// takes the signed decisions made for them elsewhere from a key-value
// bucket, executes a decision only when team.Verify accepts it, through
// the folder's own approver (claim, audit, grant jail, result), and
// publishes each outcome and the folder's audit records. The folder stays
// the bus: local approval goes on whether NATS answers or not. The wire
// formats and the subjects are here; the servers in between can delay or
// drop a request, never approve one.
package relay

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/sandbox-dev/sandbox/connector/queue"
)

// Streams, the decisions bucket, and the subjects (organisation, host,
// project and request id, so that permissions can be scoped per host and
// project).
const (
	RequestsStream = "SANDBOX_REQUESTS" // sandbox.req.ORG.HOST.PROJECT.ID
	ResultsStream  = "SANDBOX_RESULTS"  // sandbox.res.ORG.HOST.PROJECT.ID, sandbox.ref.ORG.HOST.PROJECT.ID.KEYID
	AuditStream    = "SANDBOX_AUDIT"    // sandbox.audit.ORG.HOST.PROJECT
	DecisionsKV    = "sandbox-decisions"
)

// Subject tokens: org, host and project are made subject-safe (Token).
func requestSubject(org, host, project, id string) string {
	return "sandbox.req." + org + "." + host + "." + project + "." + id
}

func resultSubject(org, host, project, id string) string {
	return "sandbox.res." + org + "." + host + "." + project + "." + id
}

// refusalSubject: a decision of one key on one request that the relay
// refused (its approver learns why instead of waiting).
func refusalSubject(org, host, project, id, key string) string {
	return "sandbox.ref." + org + "." + host + "." + project + "." + id + "." + keyID(key)
}

func keyID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:8])
}

func auditSubject(org, host, project string) string {
	return "sandbox.audit." + org + "." + host + "." + project
}

// DecisionKey is the decisions bucket's key of one approver key's
// decision on one request: each approver decides a request once (the
// bucket's writes are create-only), and a decision one key wrote never
// keeps another key's from the request. Of the decisions that check out,
// the first the relay carries out wins: the request's claim, as for
// every approver, lets nothing run twice.
func DecisionKey(org, host, project, id, key string) string {
	return org + "." + host + "." + project + "." + id + "." + keyID(key)
}

// Token makes s one subject token: what a subject cannot hold (dots,
// blanks, wildcards, controls) becomes '_', and so does '/' (the
// approvers name a request HOST/PROJECT/ID); empty is "_".
func Token(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r <= ' ' || r == 0x7f || r == '.' || r == '*' || r == '>' || r == '$' || r == '/':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// maxDisplay bounds what a published request shows; a request whose
// display was cut cannot be approved remotely (nothing approved unseen):
// its machine's own approvers show it whole.
const maxDisplay = 256 << 10

// Request is a request as the relay publishes it. Display and Reasons
// are the trusted side's: the display rendered from the request the relay
// read and validated, the reasons recomputed from the folder's accepted
// policy; Agent, Source and Session are what the request's writer said
// (untrusted, shown as such).
type Request struct {
	V         int        `json:"v"`
	Org       string     `json:"org"`
	Host      string     `json:"host"`
	Project   string     `json:"project"`
	ID        string     `json:"id"`
	Hash      string     `json:"hash"`
	Kind      queue.Kind `json:"kind"`
	Summary   string     `json:"summary"`
	Display   string     `json:"display"`
	Truncated bool       `json:"truncated,omitempty"`
	Reasons   []string   `json:"reasons,omitempty"`
	Agent     string     `json:"agent,omitempty"`
	Source    string     `json:"source,omitempty"`
	Session   string     `json:"session,omitempty"`
	Created   time.Time  `json:"created"`
}

// Refusal is a decision the relay did not carry out, and why.
type Refusal struct {
	V   int    `json:"v"`
	ID  string `json:"id"`
	Key string `json:"key"`
	Why string `json:"why"`
}

// Result is a request's outcome as the relay publishes it.
type Result struct {
	V        int            `json:"v"`
	Org      string         `json:"org"`
	Host     string         `json:"host"`
	Project  string         `json:"project"`
	ID       string         `json:"id"`
	Hash     string         `json:"hash"`
	Decision queue.Decision `json:"decision"`
	Approver string         `json:"approver"`
	Reason   string         `json:"reason,omitempty"`
	ExitCode *int           `json:"exit_code,omitempty"`
	Output   string         `json:"output,omitempty"`
	Finished time.Time      `json:"finished"`
}

// wellFormed reports whether a request or outcome read from NATS names
// itself as a relay would: organisation, host and project each one token
// (Token), the id a queue id. Anything else is never shown.
func wellFormed(org, host, project, id string) bool {
	return org == Token(org) && host == Token(host) && project == Token(project) && queue.ValidID(id)
}
