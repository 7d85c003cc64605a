//go:build windows

package jail_windows

import (
	"fmt"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Job messages posted to the completion port (winnt.h).
const (
	msgActiveProcessLimit = 3
	msgProcessMemoryLimit = 9
	msgJobMemoryLimit     = 10
)

// associatePort is JOBOBJECT_ASSOCIATE_COMPLETION_PORT.
type associatePort struct {
	key  uintptr
	port windows.Handle
}

// stopKey is the completion key that stops the reader.
const stopKey = ^uintptr(0)

// limitWatch reads the job's completion port and remembers whether a
// memory or process limit was hit.
type limitWatch struct {
	port windows.Handle
	done chan struct{}
	oom  atomic.Bool
	pids atomic.Bool
}

// watchLimits associates a new completion port with job and reads it
// until close.
func watchLimits(job windows.Handle) (w *limitWatch, err error) {
	port, err := windows.CreateIoCompletionPort(windows.InvalidHandle, 0, 0, 1)
	if err != nil {
		return nil, fmt.Errorf("%w: completion port: %w", ErrJob, err)
	}
	info := associatePort{key: uintptr(job), port: port}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectAssociateCompletionPortInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(port)
		return nil, fmt.Errorf("%w: associate completion port: %w", ErrJob, err)
	}
	w = &limitWatch{port: port, done: make(chan struct{})}
	go w.read()
	return w, nil
}

func (w *limitWatch) read() {
	defer close(w.done)
	for {
		var msg uint32
		var key uintptr
		var ov *windows.Overlapped
		if err := windows.GetQueuedCompletionStatus(w.port, &msg, &key, &ov, windows.INFINITE); err != nil {
			return
		}
		if key == stopKey {
			return
		}
		switch msg {
		case msgJobMemoryLimit, msgProcessMemoryLimit:
			w.oom.Store(true)
		case msgActiveProcessLimit:
			w.pids.Store(true)
		}
	}
}

// close stops the reader, waits for it and closes the port.
func (w *limitWatch) close() {
	if windows.PostQueuedCompletionStatus(w.port, 0, stopKey, nil) == nil {
		<-w.done
	}
	windows.CloseHandle(w.port)
}
