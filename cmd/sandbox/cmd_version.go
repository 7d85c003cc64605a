package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

type versionOptions struct {
	out io.Writer
}

func newVersionCmd() *cobra.Command {
	opts := &versionOptions{}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of sandbox",
		Long: `version prints the module version sandbox was built at (go install
...@v1.2.3), or else the commit it was built from and whether the tree had
changes not committed ("-modified"), then the platform.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			opts.out = cmd.OutOrStdout()
			return runVersion(cmd.Context(), opts)
		},
	}
}

func runVersion(_ context.Context, opts *versionOptions) error {
	_, err := fmt.Fprintf(opts.out, "sandbox %s\n", versionLine())
	return err
}

// versionLine is what `version` and `--version` print after the name.
func versionLine() string {
	bi, _ := debug.ReadBuildInfo()
	return fmt.Sprintf("%s %s/%s", versionOf(bi), runtime.GOOS, runtime.GOARCH)
}

// versionOf names the build: the module version when the binary was
// built from a published module, else the VCS revision the go command
// stamped (with the commit time, and -modified for a dirty tree). A binary
// built with neither (go test, -buildvcs=false) says so rather than
// printing "(devel)", which names nothing.
func versionOf(bi *debug.BuildInfo) string {
	if bi == nil {
		return "unknown (no build information)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, at, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "unknown (built without version control information)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "-modified"
	}
	if at != "" {
		rev += " (" + at + ")"
	}
	return rev
}
