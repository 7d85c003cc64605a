package serve

import "errors"

var (
	// ErrNoFolders: New was given no folder.
	ErrNoFolders = errors.New("no folder to serve")
	// ErrWeakToken: the token is shorter than minTokenLen.
	ErrWeakToken = errors.New("token too short")
	// ErrNotLoopback: a non-loopback address without --allow-remote.
	ErrNotLoopback = errors.New("refusing to listen beyond loopback without --allow-remote (which needs --tls-cert and --tls-key)")
	// ErrRemoteNeedsTLS: --allow-remote without a certificate and key.
	ErrRemoteNeedsTLS = errors.New("--allow-remote needs --tls-cert and --tls-key")
	// errAmbiguous: a request id found in several folders.
	errAmbiguous = errors.New("the id exists in several folders; add ?folder=KEY")
	// errNoFolder: an unknown folder key.
	errNoFolder = errors.New("no such folder (see /api/folders)")
	// errNoPolicies: the build has no policy store.
	errNoPolicies = errors.New("policy changes are not available in this build")
	// errPolicyChanged: policy.yaml changed since its diff was shown.
	errPolicyChanged = errors.New("policy.yaml changed since it was shown; look again")
	// errNoHash: an approval that does not name the content hash shown.
	errNoHash = errors.New("an approval must carry the content hash that was shown (\"hash\"); nothing ran")
	// errHashMismatch: an approval naming a hash the request does not have.
	errHashMismatch = errors.New("the request is not the one shown; nothing ran")
	// errStale: an approval of a request nobody waits for, without stale_ok.
	errStale = errors.New("nobody waits for this request any more; approve it with stale_ok to run it anyway. Nothing ran")
	// errNoPolicyChange: nothing to accept.
	errNoPolicyChange = errors.New("no pending policy change")
)
