package broker

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// output fans each chunk of a stream out to its capture, the log file and
// the OnOutput callback.
type output struct {
	onOutput func(stream string, p []byte)
	out, err *capture

	mu     sync.Mutex // guards the fields below and serialises writes
	log    *os.File   // nil when no log was asked for
	logErr error      // the first log write error
}

func newOutput(log *os.File, s Spec) *output {
	return &output{
		onOutput: s.OnOutput,
		out:      newCapture(s.MaxCapture, log != nil),
		err:      newCapture(s.MaxCapture, log != nil),
		log:      log,
	}
}

// pump copies r (one stream) until EOF or until r is closed.
func (o *output) pump(stream string, r io.Reader) {
	c := o.out
	if stream == Stderr {
		c = o.err
	}
	buf := make([]byte, 32<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			o.chunk(stream, c, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

func (o *output) chunk(stream string, c *capture, p []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	c.Write(p)
	if o.log != nil && o.logErr == nil {
		if _, err := o.log.Write(p); err != nil {
			o.logErr = fmt.Errorf("%w: %w", ErrLog, err)
		}
	}
	if o.onOutput != nil {
		o.onOutput(stream, p)
	}
}

// note writes a line of our own into the log (and to OnOutput as stderr).
func (o *output) note(format string, args ...any) {
	line := fmt.Sprintf("sandbox: "+format+"\n", args...)
	o.chunk(Stderr, newCapture(1, false), []byte(line))
}

// fill copies the captures into oc.
func (o *output) fill(oc *Outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	oc.Stdout, oc.StdoutTruncated = o.out.String()
	oc.Stderr, oc.StderrTruncated = o.err.String()
	oc.StdoutBytes, oc.StderrBytes = o.out.total, o.err.total
}

// close closes the log and returns the first log error.
func (o *output) close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.log == nil {
		return o.logErr
	}
	err := o.log.Close()
	o.log = nil
	if o.logErr != nil {
		return o.logErr
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrLog, err)
	}
	return nil
}

// LogMode is the mode of the log file: it holds whatever the command
// printed (tokens, file contents), so only the user reads it.
const LogMode = 0o600

// createLog creates path for writing (mode LogMode). It refuses an
// existing file and never follows a symbolic link at path.
func createLog(path string) (*os.File, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, LogMode)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%w: %s already exists", ErrLog, path)
		}
		return nil, fmt.Errorf("%w: %w", ErrLog, err)
	}
	return f, nil
}
