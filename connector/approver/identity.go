package approver

import (
	"os"
	"os/user"
	"strconv"
)

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

// CurrentUser returns user@host for the running process, falling back to
// the numeric uid and "localhost" when the names are unknown.
func CurrentUser() string {
	name := ""
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	if name == "" {
		name = os.Getenv("USER")
	}
	if name == "" {
		name = "uid" + strconv.Itoa(os.Getuid())
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return name + "@" + host
}

// NewIdentity is the current user deciding through surface.
func NewIdentity(surface string) Identity {
	return Identity{User: CurrentUser(), Surface: surface}
}
