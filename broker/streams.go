package broker

import (
	"os"
	"sync"
	"time"
)

// streams are the pipes of a command started by a Jailer: the child's
// ends go to the jail, ours feed the output.
type streams struct {
	childIn, childOut, childErr *os.File
	stdin, stdout, stderr       *os.File // ours; stdin nil without input
	pumps                       sync.WaitGroup
}

func openStreams(stdin []byte) (st *streams, err error) {
	st = &streams{}
	defer func() {
		if err != nil {
			st.closeChild()
			st.closeOurs()
		}
	}()
	if st.stdout, st.childOut, err = os.Pipe(); err != nil {
		return nil, err
	}
	if st.stderr, st.childErr, err = os.Pipe(); err != nil {
		return nil, err
	}
	if stdin != nil {
		if st.childIn, st.stdin, err = os.Pipe(); err != nil {
			return nil, err
		}
	}
	return st, nil
}

// pump copies the output into o and feeds stdin.
func (st *streams) pump(o *output, stdin []byte) {
	st.pumps.Add(2)
	go func() { defer st.pumps.Done(); o.pump(Stdout, st.stdout) }()
	go func() { defer st.pumps.Done(); o.pump(Stderr, st.stderr) }()
	if st.stdin != nil {
		go feed(st.stdin, stdin)
	}
}

// drain waits for the pumps, at most DrainTimeout, then closes our ends.
func (st *streams) drain() {
	done := make(chan struct{})
	go func() { st.pumps.Wait(); close(done) }()
	t := time.NewTimer(DrainTimeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		closeAll([]*os.File{st.stdout, st.stderr})
		<-done
	}
	st.closeOurs()
}

func (st *streams) closeChild() { closeAll([]*os.File{st.childIn, st.childOut, st.childErr}) }
func (st *streams) closeOurs()  { closeAll([]*os.File{st.stdin, st.stdout, st.stderr}) }
