package approver

import "errors"

var (
	// ErrAlreadyTaken: another approver claimed the request first.
	ErrAlreadyTaken = errors.New("another approver has already taken this request")
	// ErrAlreadyDecided: the request already has a result in done/.
	ErrAlreadyDecided = errors.New("request already decided")
	// ErrTooLate: a deny arrived after the approved request had started.
	ErrTooLate = errors.New("too late to deny: the request is already running")
	// ErrNotFound: no request with that id in this folder.
	ErrNotFound = errors.New("no such request")
	// ErrBadID: the id does not have the request id format.
	ErrBadID = errors.New("invalid request id")
	// ErrAuditRefused: a record could not be written to the audit log, so
	// the action it announced was refused and nothing ran.
	ErrAuditRefused = errors.New("refused: the audit log cannot be written")
	// ErrDeniedBeforeStart: a deny reached the request before this
	// approval started it; it was not run.
	ErrDeniedBeforeStart = errors.New("denied by another approver before it started")
	// ErrNotHuman: an approver command was started from inside a jail or
	// from an agent's process tree (a Makefile, a package.json script or
	// a test the agent wrote); it decides nothing.
	ErrNotHuman = errors.New("refused: approvals come from a human's terminal, not from an agent or a jail")
	// ErrSelfProtected: the request targets what protects the sandbox
	// itself (.sandbox/, the per-user state, the policy, the audit log);
	// it is never executed, whatever the human clicked.
	ErrSelfProtected = errors.New("refused: the request targets the sandbox's own protection")
	// ErrNoMemory: "approve always" without a remembered-decisions store.
	ErrNoMemory = errors.New("remembered decisions are not available here")
	// ErrNotRemembered: the request was approved and run once, but the
	// remembered decision could not be stored.
	ErrNotRemembered = errors.New("approved once; the remembered decision was not stored")
	// ErrNoPattern: no remembered pattern covers the request (several
	// escalated parts, a part no pattern matches exactly, or the pattern
	// given does not cover it).
	ErrNoPattern = errors.New("no pattern can remember this request")
	// ErrNotRegular: a file to read is a link or not a regular file.
	ErrNotRegular = errors.New("not a regular file (or directory)")
	// ErrTooLarge: a file is larger than its cap.
	ErrTooLarge = errors.New("file too large")
)
