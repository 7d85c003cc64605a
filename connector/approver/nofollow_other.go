//go:build !unix

package approver

const (
	oNoFollow = 0
	oNonblock = 0
)
