// Package approver is the one place where a human's (or a remembered)
// decision on an escalated request becomes an execution. The process that
// approves is the broker that runs: it claims the request, audits the
// intent, runs exactly the bytes it read at the claim, writes the result
// and audits the outcome. `sandbox watch`, `sandbox approve/deny`, the
// dashboard and CI mode all decide through it.
package approver
