package launcher

import (
	"os"
	"os/exec"
	"path/filepath"
)

// binaryDirs are the directories that hold the agent's own executable,
// found on the jail's PATH as the jail will (the name, its link's target,
// and the npm package the target belongs to) where they lie in a
// writable tree: read-only, so that a jailed agent cannot replace the
// program that runs, unjailed, the next time it is started without
// sandbox. A directory that is the project, or holds a writable tree, is
// left alone: protecting it would take the tree with it.
func binaryDirs(o *Options, writable []string) []string {
	if len(o.Argv) == 0 || agentProfile(agentName(o)).ConfigDir == "" {
		return nil // not a known agent: the command is the project's business
	}
	exe := lookPathIn(o.Argv[0], envValue(baseEnv(o), "PATH"))
	if exe == "" {
		return nil
	}
	dirs := []string{filepath.Dir(exe)}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		dirs = append(dirs, filepath.Dir(real))
		if pkg := npmPackage(real); pkg != "" {
			dirs = append(dirs, pkg)
		}
	}
	var out []string
	for _, d := range dirs {
		if inAny(d, writable) && !inAny(o.Folder.Root, []string{d}) && !holdsAny(d, writable) {
			out = append(out, d)
		}
	}
	return out
}

// lookPathIn finds name as exec.LookPath would with PATH set to path.
func lookPathIn(name, path string) string {
	if filepath.IsAbs(name) {
		return name
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	if p, err := exec.LookPath(name); err == nil && filepath.IsAbs(p) {
		return p
	}
	return ""
}

// npmPackage is the nearest directory above file (at most three levels)
// that holds a package.json: the whole package is the agent's code.
func npmPackage(file string) string {
	d := filepath.Dir(file)
	for range 3 {
		if _, err := os.Stat(filepath.Join(d, "package.json")); err == nil {
			return d
		}
		d = filepath.Dir(d)
	}
	return ""
}
