package serve

// Event types sent on /api/events.
const (
	EventHello   = "hello"           // first message: the server's status
	EventPending = "request.pending" // a request appeared (Request set)
	EventClaimed = "request.claimed" // an approver took it (it is running or being decided)
	EventDone    = "request.done"    // it has a result (Request and Result set)
	EventOutput  = "output"          // live output of a running request (Stream, Text)
	EventAudit   = "audit"           // a record was appended (Record set)
	EventPolicy  = "policy"          // policy.yaml or the accepted policy changed (Policy set)
	EventProblem = "problem"         // a bad file was quarantined (Problem set)
	EventAgents  = "agents"          // the inbox's agents changed: an agent joined, or a state (GET /api/agents)
)

// Event is one message on /api/events. Every text in it is escaped.
type Event struct {
	Type    string       `json:"type"`
	Folder  string       `json:"folder,omitempty"`
	ID      string       `json:"id,omitempty"`
	Request *RequestView `json:"request,omitempty"`
	Result  *ResultView  `json:"result,omitempty"`
	Stream  string       `json:"stream,omitempty"`
	Text    string       `json:"text,omitempty"`
	Record  *RecordView  `json:"record,omitempty"`
	Policy  *PolicyView  `json:"policy,omitempty"`
	Problem string       `json:"problem,omitempty"`
	Status  *Status      `json:"status,omitempty"`
	// Team is how a request decided here in team mode ended.
	Team *TeamOutcomeView `json:"team,omitempty"`
}
