//go:build unix && !linux

package broker

// awaitExit reaps the leader: without waitid(WNOWAIT) there is a short
// window in which the group id could be reused before killGroup runs.
func (p *proc) awaitExit() {
	defer close(p.exited)
	p.waitErr = p.cmd.Wait()
	p.reaped = true
}
