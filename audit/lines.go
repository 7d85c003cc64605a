package audit

import (
	"bufio"
	"crypto/sha256"
	"errors"
	"io"
)

// readBuf is the buffer of a lineReader; lines longer than it are never
// records and are returned by length and digest only.
const readBuf = 1 << 20

// lineInfo is one line of a log file.
type lineInfo struct {
	b       []byte            // without the newline; valid until the next call; nil when long
	off     int64             // offset of the first byte
	size    int64             // length without the newline
	newline bool              // false only for a final fragment
	long    bool              // longer than readBuf: b is nil, sum is set
	sum     [sha256.Size]byte // SHA-256 of the line when long
	no      int               // 1-based line number
}

// digest is the SHA-256 of the line's bytes (without its newline).
func (li *lineInfo) digest() [sha256.Size]byte {
	if li.long {
		return li.sum
	}
	return sha256.Sum256(li.b)
}

// lineReader splits a file into lines without allocating per line.
type lineReader struct {
	r   *bufio.Reader
	off int64
	no  int
}

// newLineReader reads lines from r, which holds at most size bytes (the
// buffer need not be larger), starting at file offset off.
func newLineReader(r io.Reader, off, size int64, firstLine int) *lineReader {
	buf := int(min(readBuf, max(size+1, 16)))
	return &lineReader{r: bufio.NewReaderSize(r, buf), off: off, no: firstLine - 1}
}

// next returns the next line, or io.EOF when none is left.
func (lr *lineReader) next() (lineInfo, error) {
	b, err := lr.r.ReadSlice('\n')
	li := lineInfo{b: b, off: lr.off, no: lr.no + 1}
	switch {
	case err == nil:
		li.b, li.newline, li.size = b[:len(b)-1], true, int64(len(b)-1)
	case errors.Is(err, bufio.ErrBufferFull):
		if err := lr.skipLong(&li); err != nil {
			return li, err
		}
	case errors.Is(err, io.EOF) && len(b) > 0:
		li.size = int64(len(b))
	default:
		return li, err
	}
	lr.no++
	lr.off += li.size
	if li.newline {
		lr.off++
	}
	return li, nil
}

// skipLong consumes a line longer than the buffer, whose first chunk is
// li.b, keeping only its length and digest.
func (lr *lineReader) skipLong(li *lineInfo) error {
	h := sha256.New()
	chunk := li.b
	li.b, li.long = nil, true
	for {
		h.Write(chunk)
		li.size += int64(len(chunk))
		var err error
		chunk, err = lr.r.ReadSlice('\n')
		switch {
		case err == nil:
			h.Write(chunk[:len(chunk)-1])
			li.size += int64(len(chunk) - 1)
			li.newline = true
			h.Sum(li.sum[:0])
			return nil
		case errors.Is(err, io.EOF):
			h.Write(chunk)
			li.size += int64(len(chunk))
			h.Sum(li.sum[:0])
			return nil
		case !errors.Is(err, bufio.ErrBufferFull):
			return err
		}
	}
}
