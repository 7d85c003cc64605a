//go:build windows

package jail_windows

import (
	"fmt"

	"github.com/sandbox-dev/sandbox/launcher/jailspec"
)

// What a Job Object leaves open, said plainly in every report.
const (
	notFS  = "a Job Object does not confine the file system: the command can read and write everything your user can, .sandbox/ and the per-user state dir included"
	notReg = "a Job Object does not confine the registry: the command can read and change your user's keys"
	notNet = "a Job Object does not confine the network: direct connections bypass the proxy; only programs that honour HTTP(S)_PROXY go through it"
	notSvc = "processes started through a service (WMI, Task Scheduler, COM servers) run outside the job and outlive it"
)

func (f *facts) report() jailspec.Report {
	r := jailspec.Report{OS: "windows"}
	r.Layers = []jailspec.LayerReport{
		f.jobLayer(),
		layer(jailspec.LayerLandlock, jailspec.StatusMissing, "%s; %s", notFS, notReg),
		layer(jailspec.LayerSeccomp, jailspec.StatusMissing,
			"no system-call filter on Windows: every Win32 and NT API your user may call is open to the command"),
		layer(jailspec.LayerNoNewPrivs, jailspec.StatusMissing,
			"the command runs with your full user token (no restricted token, no lower integrity level); "+
				"UAC still asks before an elevation"),
		layer(jailspec.LayerMount, jailspec.StatusMissing,
			"no private view of the file system: .sandbox/, agent configuration and the per-user state dir are not "+
				"protected from the command (the escalation queue's integrity checks still apply)"),
		f.pidLayer(),
		layer(jailspec.LayerNetwork, jailspec.StatusMissing, "%s", notNet),
	}
	r.Notes = append(r.Notes, f.system(),
		"not confined on Windows: the file system, the registry, direct network connections, "+
			"and processes started through services",
		"UI: desktops, display settings, system parameters, global atoms, other processes' windows and logoff refused; "+
			"input synthesised for the foreground window (SendInput) is not")
	if f.inJob {
		r.Notes = append(r.Notes, "this process already runs in a job: the command's job is nested in it")
	}
	return r
}

func layer(l jailspec.Layer, s jailspec.Status, format string, args ...any) jailspec.LayerReport {
	return jailspec.LayerReport{Layer: l, Status: s, Detail: fmt.Sprintf(format, args...)}
}

// jobLayer is the cgroup layer's counterpart: limits.
func (f *facts) jobLayer() jailspec.LayerReport {
	switch {
	case f.inJob && !f.nestedJobs():
		return layer(jailspec.LayerCgroup, jailspec.StatusMissing,
			"this process runs in a job and Windows %s cannot nest jobs (needs Windows 8 or later)", f.version)
	case f.wine != "":
		return layer(jailspec.LayerCgroup, jailspec.StatusDegraded,
			"Job Object under Wine %s: memory and process limits are accepted but not enforced; a CPU cap is refused (--cpu fails)", f.wine)
	}
	return layer(jailspec.LayerCgroup, jailspec.StatusOK,
		"Job Object: job and per-process memory limits, active-process limit (processes, not threads), CPU hard cap; "+
			"entered suspended, before the command runs")
}

// pidLayer is the kill-the-tree guarantee.
func (f *facts) pidLayer() jailspec.LayerReport {
	if f.inJob && !f.nestedJobs() {
		return layer(jailspec.LayerPid, jailspec.StatusMissing, "no job of its own: jailed processes may outlive the run")
	}
	return layer(jailspec.LayerPid, jailspec.StatusOK,
		"Job Object kills the whole tree when the supervisor ends for any reason (kill-on-close, no breakaway), "+
			"but "+notSvc)
}
