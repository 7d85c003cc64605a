//go:build linux

package jailinit

// Config is what the supervisor sends the init: the spec without its
// streams and logger, plus how the init was started.
type Config struct {
	Argv []string `json:"argv"`
	// Direct is the program the shell Argv would only have started
	// (jailspec.Spec.Direct; directCommand).
	Direct []string `json:"direct,omitempty"`
	Env    []string `json:"env"`
	Dir    string   `json:"dir"`

	Writable []string `json:"writable"`
	NoLinks  []string `json:"no_links"` // writable trees reached without a symbolic link (nolinks_linux.go)
	ReadOnly []string `json:"read_only"`
	Holes    []string `json:"holes"`
	Hidden   []string `json:"hidden"`
	// SharedTmp keeps the host's /tmp and /var/tmp, their sockets hidden
	// (the spec's FS.SharedTmp).
	SharedTmp bool `json:"shared_tmp"`
	// TmpSockets are the sockets the supervisor found in the shared
	// scratch trees (findTmpSockets); TmpScan asks the init to walk the
	// trees for more.
	TmpSockets []string `json:"tmp_sockets"`
	TmpScan    bool     `json:"tmp_scan"`
	// TmpSocketDirs are the well-known socket dirs directly in the shared
	// scratch trees (TmpSocketDirNames' patterns), listed by the
	// supervisor (which keeps the list while the tree's own entries do
	// not change); hidden whole.
	TmpSocketDirs []string `json:"tmp_socket_dirs"`
	// Placeholders are the paths the supervisor created to pin missing
	// ReadOnly names for this run.
	Placeholders []string     `json:"placeholders"`
	pinnedLinks  []string     // ReadOnly names that are symbolic links (the init's own)
	Substs       []Substitute `json:"substitutes"`

	ProxyPort int   `json:"proxy_port"`
	NetOpen   bool  `json:"net_open"` // the whole network (the spec's Net.Open)
	Forward   []int `json:"forward"`  // host loopback ports relayed in (the spec's Net.Forward)

	Landlock   bool `json:"landlock"`
	Seccomp    bool `json:"seccomp"`
	NoNewPrivs bool `json:"no_new_privs"`
	MountNS    bool `json:"mount_ns"`
	PidNS      bool `json:"pid_ns"`
	NetNS      bool `json:"net_ns"`
	UserNS     bool `json:"user_ns"` // the init's capabilities are ambient ones in a user namespace
}

// Substitute puts Source in Path's place in the jail (the spec's
// FS.Substitutes).
type Substitute struct {
	Path, Source string
}

// anyRestriction reports whether the command gets any per-thread
// restriction (which all need no_new_privs first).
func (c *Config) anyRestriction() bool { return c.Landlock || c.Seccomp || c.NoNewPrivs }
