//go:build windows

package jail_windows

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/windows"
)

// facts are what the jail relies on, detected once.
type facts struct {
	major, minor uint32 // Windows version
	version      string // "10.0.22631"
	wine         string // Wine's version, "" on Windows
	inJob        bool   // the supervisor already runs in a job (nested jobs)
}

func detect() *facts {
	v := windows.RtlGetVersion()
	f := &facts{
		major: v.MajorVersion, minor: v.MinorVersion,
		version: fmt.Sprintf("%d.%d.%d", v.MajorVersion, v.MinorVersion, v.BuildNumber),
		wine:    WineVersion(),
	}
	f.inJob, _ = isProcessInJob(windows.CurrentProcess(), 0)
	return f
}

// nestedJobs reports whether jobs nest (Windows 8 / Server 2012 and
// later): a supervisor already in a job needs that to give the command
// its own.
func (f *facts) nestedJobs() bool { return f.major > 6 || f.major == 6 && f.minor >= 2 }

func (f *facts) system() string {
	s := "Windows " + f.version + " " + runtime.GOARCH
	if f.wine != "" {
		s += " (Wine " + f.wine + ")"
	}
	return s
}
