package policy

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/shell"
)

// defaultPorts are the ports of URL schemes without an explicit port.
var defaultPorts = map[string]int{
	"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "ftps": 990,
	"ssh": 22, "sftp": 22, "git": 9418, "rsync": 873,
}

// webSearchHost is the pseudo destination of an agent's web search tool:
// a network rule for "websearch" decides it.
const webSearchHost = "websearch"

// Network decides reaching hostport ("host", "host:port", "[v6]:port").
func (e *Engine) Network(hostport string) (d Decision) {
	defer e.stampTo(&d)
	defer e.recoverTo(&d, Network, hostport)
	return combine([]Part{e.hostPart(hostport, hostport)})
}

// NetworkURL decides fetching a URL; the port defaults by scheme. A value
// without "://" is taken as host:port.
func (e *Engine) NetworkURL(raw string) (d Decision) {
	defer e.stampTo(&d)
	defer e.recoverTo(&d, Network, raw)
	if !strings.Contains(raw, "://") {
		return combine([]Part{e.hostPart(raw, raw)})
	}
	hp, err := urlHostPort(raw)
	if err != nil {
		return single(Network, clipText(raw, maxSubject), Escalate, ruleHost, err.Error())
	}
	return combine([]Part{e.hostPart(hp, hp)})
}

// WebSearch decides an agent's web search: the network destination
// "websearch", since the query leaves the machine.
func (e *Engine) WebSearch(query string) (d Decision) {
	defer e.stampTo(&d)
	defer e.recoverTo(&d, Network, query)
	p := e.destPart(dest{name: webSearchHost})
	p.Subject = webSearchHost + ": " + clipText(query, maxSubject)
	return combine([]Part{p})
}

func urlHostPort(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	host := u.Hostname()
	if host == "" {
		return "", &url.Error{Op: "parse", URL: raw, Err: errNoHost}
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	port := u.Port()
	if port == "" {
		if n := defaultPorts[strings.ToLower(u.Scheme)]; n != 0 {
			port = strconv.Itoa(n)
		}
	}
	if port == "" {
		return host, nil
	}
	return host + ":" + port, nil
}

// hostPart parses and decides one destination; subject is what to show
// when it does not parse.
func (e *Engine) hostPart(hostport, subject string) Part {
	d, err := parseDest(hostport)
	if err != nil {
		return Part{Trigger: Network, Subject: clipText(subject, maxSubject), Decision: Escalate,
			Rule: ruleHost, Reason: err.Error()}
	}
	return e.destPart(d)
}

func (e *Engine) destPart(d dest) Part {
	m := func(r *boundRule, may bool) matchKind {
		if r.host != nil && r.host.match(d, may) {
			return matchExact
		}
		return noMatch
	}
	p := evaluate(e.index(Network), allRules, m).part(Network, d.String())
	if p.Decision == Escalate {
		p.Propose = ProposePattern(Network, d.String())
	}
	return p
}

func (e *Engine) scriptHostPart(ef *shell.Effect) Part {
	if ef.Dynamic {
		return Part{Trigger: Network, Subject: ef.Host, Decision: Escalate, Rule: ruleDynamic,
			Reason: joinReason(ef.Reason, "the destination is not known statically")}
	}
	p := e.hostPart(ef.Host, ef.Host)
	if e.jailed && p.Decision == Escalate && p.Rule == ruleDefault && jailLoopback(ef.Host) {
		// No rule names it, and in the jail it is the jail's own
		// loopback (its own network namespace): a server the same
		// command started. The host's services are there only where a
		// network rule forwards their port, and then that rule decides.
		p.Decision, p.Rule = Allow, ruleJailLoopback
		p.Reason, p.Propose = "the jail's own loopback (the host's services are reached only through a network rule)", ""
	}
	return p
}

// jailLoopback reports a destination on the loopback: 127.0.0.0/8, ::1
// (also IPv4-mapped) or localhost.
func jailLoopback(hostport string) bool {
	d, err := parseDest(hostport)
	if err != nil {
		return false
	}
	if d.ip.IsValid() {
		return d.ip.Unmap().IsLoopback()
	}
	return d.name == "localhost"
}

// MCP decides calling an MCP tool by its full name (mcp__server__tool).
func (e *Engine) MCP(tool string) (d Decision) {
	defer e.stampTo(&d)
	defer e.recoverTo(&d, MCP, tool)
	if !validTool(tool) {
		return single(MCP, clipText(tool, maxSubject), Escalate, ruleInput, "not a valid MCP tool name")
	}
	folded := foldName(tool)
	m := func(r *boundRule, may bool) matchKind {
		switch {
		case r.tool == nil:
			return noMatch
		case may && r.toolFold != nil && r.toolFold.match(folded), !may && r.tool.match(tool):
			return matchExact
		}
		return noMatch
	}
	p := evaluate(e.index(MCP), allRules, m).part(MCP, tool)
	if p.Decision == Escalate {
		p.Propose = tool
	}
	return combine([]Part{p})
}
