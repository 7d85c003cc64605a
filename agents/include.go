package agents

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/folder"
)

// IncludeFile lists, in gitignore syntax, the ignored files of MAIN that
// a new worktree gets a copy of (Claude Code's format: a file is copied
// when it matches a pattern and git ignores it; .env is the usual one).
const IncludeFile = ".worktreeinclude"

// Copied is what copyIncluded did with the files .worktreeinclude listed.
type Copied struct {
	Files   []string // copied, relative to the worktree
	Skipped []string // "PATH: why" (links are not followed; a file the checkout has is kept)
}

// maxIncludeFiles bounds the files one spawn copies: a pattern such as
// node_modules/ would otherwise copy a tree the setup command rebuilds.
const maxIncludeFiles = 10000

// copyIncluded copies into wt the files of main that .worktreeinclude
// names and git ignores. git itself matches the patterns (ls-files with
// the file as an exclude list), so the syntax is exactly gitignore's.
func copyIncluded(ctx context.Context, main, wt string) (Copied, error) {
	var c Copied
	inc := filepath.Join(main, IncludeFile)
	fi, err := os.Lstat(inc)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil || !fi.Mode().IsRegular() {
		return c, fmt.Errorf("%s: not a regular file", inc)
	}
	listed, err := lsOthers(ctx, main, "--exclude-from="+inc)
	if err != nil {
		return c, err
	}
	listed = slices.DeleteFunc(listed, func(p string) bool {
		return p == folder.DirName || strings.HasPrefix(p, folder.DirName+"/")
	})
	// which of them git ignores: asked of these paths only, not of a
	// second walk of MAIN that lists every ignored file (a node_modules
	// of 40,000 files doubled the walk)
	files, err := ignoredOf(ctx, main, listed)
	if err != nil {
		return c, err
	}
	if len(files) > maxIncludeFiles {
		return c, fmt.Errorf("%s matches %d files (at most %d): name files, not trees the setup command rebuilds", IncludeFile, len(files), maxIncludeFiles)
	}
	return c, copyFiles(main, wt, files, &c)
}

// lsOthers lists MAIN's untracked files that the exclude option ignores.
func lsOthers(ctx context.Context, main, exclude string) ([]string, error) {
	out, err := git(ctx, main, "ls-files", "-z", "--others", "--ignored", exclude)
	if err != nil {
		return nil, err
	}
	return strings.FieldsFunc(out, func(r rune) bool { return r == 0 }), nil
}

// ignoredOf returns those of paths (untracked, relative to main) that
// git's own exclude rules ignore (.gitignore files, info/exclude,
// core.excludesFile), in their order. Each goes to git as "./PATH": a
// path, never a pathspec (check-ignore takes no --literal-pathspecs, and
// would read a file named ":(top).env" as .env).
func ignoredOf(ctx context.Context, main string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for _, p := range paths {
		in.WriteString("./" + p + "\x00")
	}
	out, err := gitStdin(ctx, main, in.String(), 1, "check-ignore", "-z", "--stdin")
	if err != nil {
		return nil, err
	}
	var ignored []string
	for _, p := range strings.FieldsFunc(out, func(r rune) bool { return r == 0 }) {
		ignored = append(ignored, strings.TrimPrefix(p, "./"))
	}
	return ignored, nil
}

// copyFiles copies each regular file; both trees are opened as roots, so
// that no link (in MAIN, or checked out in the worktree) leads a read or
// a write outside them.
func copyFiles(main, wt string, files []string, c *Copied) error {
	src, err := os.OpenRoot(main)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenRoot(wt)
	if err != nil {
		return err
	}
	defer dst.Close()
	for _, p := range files {
		why, err := copyOne(src, dst, p)
		if err != nil {
			return fmt.Errorf("copy %s: %w", p, err)
		}
		if why != "" {
			c.Skipped = append(c.Skipped, p+": "+why)
			continue
		}
		c.Files = append(c.Files, p)
	}
	return nil
}

func copyOne(src, dst *os.Root, p string) (why string, err error) {
	fi, err := src.Lstat(p)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "not a regular file (links are not followed)", nil
	}
	in, err := src.Open(p)
	if err != nil {
		return "", err
	}
	defer in.Close()
	if d := filepath.Dir(p); d != "." {
		if err := dst.MkdirAll(d, 0o755); err != nil {
			return "", err
		}
	}
	out, err := dst.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if errors.Is(err, fs.ErrExist) {
		return "the checkout has it; kept", nil
	}
	if err != nil {
		return "", err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return "", err
}
