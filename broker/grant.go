package broker

import (
	"os"
	"slices"
	"strings"
)

// Net is how much of the network a grant jail reaches.
type Net int

const (
	// NetNone: nothing; the jail's proxy denies every destination.
	NetNone Net = iota
	// NetHosts: the Grant's Hosts only, through the jail's proxy (programs
	// that honour HTTP_PROXY/HTTPS_PROXY; others reach nothing).
	NetHosts
	// NetAll: the whole network, directly (git over ssh, npm, ...: tools
	// whose destinations are not known before they run).
	NetAll
)

func (n Net) String() string {
	switch n {
	case NetHosts:
		return "hosts"
	case NetAll:
		return "all"
	}
	return "none"
}

// Grant is what an approved command's jail adds to the project jail:
// exactly what the parts a human approved named, nothing else. The zero
// Grant is the project jail itself, with no network.
type Grant struct {
	// Write lists paths (files or trees) made writable outside what the
	// project jail writes. A file that does not exist yet is created empty
	// just before the run, so that it alone is writable (Landlock grants
	// existing names; its directory would open every file beside it).
	Write []string
	// Read lists paths the project jail hides (secrets) made readable.
	Read []string
	// Net and Hosts (host:port, for NetHosts) are the network reached.
	Net   Net
	Hosts []string
	// Credentials name what a tool was given to authenticate (the ssh
	// agent, ~/.ssh, ~/.git-credentials, ~/.npmrc), for the display; the
	// paths are in Read, the variables in Env.
	Credentials []string
	// Env lists the names of the variables the command receives.
	Env []string
	// Git says how the command runs git: then its repository is checked
	// and pinned and the configuration keys that run programs are fixed
	// (see gitEnv).
	Git GitUse
	// Notes say what else holds for this run.
	Notes []string

	fetcher bool // GrantFor saw curl or wget (while it derives)
}

// Describe renders g as lines for an approver to show before and after
// the approval: where the command runs and what it is granted beyond the
// project jail.
func Describe(g Grant) []string {
	lines := []string{"runs in a grant jail: the project jail (project writable, secrets hidden, .sandbox read-only) plus:"}
	if len(g.Write) == 0 {
		lines = append(lines, "  write: nothing outside the project")
	}
	for _, w := range g.Write {
		if _, err := os.Lstat(w); err != nil {
			lines = append(lines, "  write: "+w+" (new: created empty just before the run; only this file is writable)")
			continue
		}
		lines = append(lines, "  write: "+w)
	}
	for _, r := range g.Read {
		lines = append(lines, "  read: "+r)
	}
	switch g.Net {
	case NetNone:
		lines = append(lines, "  network: none")
	case NetHosts:
		lines = append(lines, "  network: only "+strings.Join(g.Hosts, ", ")+" (through the proxy)")
	case NetAll:
		lines = append(lines, "  network: all of it (the tool's destinations are not known in advance)")
	}
	if len(g.Credentials) > 0 {
		lines = append(lines, "  credentials: "+strings.Join(g.Credentials, ", "))
	}
	if len(g.Env) > 0 {
		env := slices.Clone(g.Env)
		slices.Sort(env)
		lines = append(lines, "  environment: "+strings.Join(env, " "))
	}
	if g.Git != GitNone {
		lines = append(lines, "  git: hooks and fsmonitor off, ssh/pager/editor/credential helper from your global config only"+
			map[bool]string{true: ", the project's own repository (GIT_DIR)", false: ""}[g.Git == GitRepo])
	}
	for _, n := range g.Notes {
		lines = append(lines, "  "+n)
	}
	return lines
}

// DescribeUnjailed is what the approver shows (and the result and the
// audit record say) when no jail could be built and the command ran, or
// will run, with the user's full rights.
func DescribeUnjailed(why string) []string {
	return []string{unjailedMark + why}
}

const unjailedMark = "runs WITHOUT a jail, with your full rights: "

// addUnique appends s to list unless it is there already.
func addUnique(list []string, s ...string) []string {
	for _, x := range s {
		if !slices.Contains(list, x) {
			list = append(list, x)
		}
	}
	return list
}
