package policy

import "github.com/sandbox-dev/sandbox/connector/userstate"

func defaultStateDir() string {
	d, err := userstate.DefaultDir()
	if err != nil {
		return ""
	}
	return d
}
