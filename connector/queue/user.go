package queue

import (
	"os"
	"os/user"
	"sync"
)

// LocalUser returns user@host for Approver.User.
func LocalUser() string { return localUser() }

var localUser = sync.OnceValue(func() string {
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil && u.Username != "" {
		name = u.Username
	}
	if name == "" {
		name = "unknown"
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return name + "@" + host
})
