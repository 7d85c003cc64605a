package approver

import "github.com/sandbox-dev/sandbox/connector/queue"

// Surfaces through which a decision is taken.
const (
	SurfaceWatch      = "watch"
	SurfaceServe      = "serve"
	SurfaceCLI        = "cli"
	SurfaceCI         = "ci"
	SurfaceRemembered = "remembered"
)

// Identity is who decides and through which surface. User is user@host.
type Identity struct {
	User    string
	Surface string
}

// NewIdentity is the current user (user@host) deciding through surface.
func NewIdentity(surface string) Identity {
	return Identity{User: queue.LocalUser(), Surface: surface}
}

func (who Identity) queueApprover() queue.Approver {
	return queue.Approver{User: who.User, Surface: who.Surface}
}
