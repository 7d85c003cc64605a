package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/sandbox-dev/sandbox/connector/display"
	"github.com/sandbox-dev/sandbox/connector/folder"
	"github.com/sandbox-dev/sandbox/connector/queue"
	"github.com/spf13/cobra"
)

// maxCandidates is how many ids an ambiguous prefix lists; more than a
// screenful helps nobody pick.
const maxCandidates = 10

// resolveID turns what the human typed into a request id: the id itself
// when a request has it, else the one id that starts with it. Ids made in
// the same second share their first 8 characters, so a short prefix is
// often ambiguous: then nothing is acted on and the error lists the
// candidates. A prefix nothing matches is returned as it is, for the
// command to say "no request".
func resolveID(f folder.Folder, typed string) (string, error) {
	if !queue.ValidID(typed) {
		return typed, nil
	}
	ids := folderIDs(f.Pending(), f.Claimed(), f.Done())
	if slices.Contains(ids, typed) {
		return typed, nil
	}
	var match []string
	for _, id := range ids {
		if strings.HasPrefix(id, typed) {
			match = append(match, id)
		}
	}
	switch len(match) {
	case 0:
		return typed, nil
	case 1:
		return match[0], nil
	}
	return "", usageErrorf("%s", ambiguousID(typed, match))
}

func ambiguousID(typed string, match []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q is the start of %d requests; nothing was done. Type more of the id:", typed, len(match))
	for i, id := range match {
		if i == maxCandidates {
			fmt.Fprintf(&b, "\n  … and %d more", len(match)-i)
			break
		}
		fmt.Fprintf(&b, "\n  %s", display.EscapeLine(id))
	}
	return b.String()
}

// folderIDs lists the request ids found in dirs, sorted, once each. Only
// names that are valid ids count: the agent can write anything into
// pending/.
func folderIDs(dirs ...string) []string {
	var ids []string
	for _, dir := range dirs {
		d, err := os.Open(dir)
		if err != nil {
			continue
		}
		names, _ := d.Readdirnames(-1)
		d.Close()
		for _, n := range names {
			if id, ok := strings.CutSuffix(n, ".json"); ok && queue.ValidID(id) {
				ids = append(ids, id)
			}
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// completePendingIDs completes the first argument of approve, deny, show
// and result with the ids of pending requests (the ones a human acts on).
func completePendingIDs(dir *dirFlag) cobra.CompletionFunc {
	return func(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		f, err := folder.Resolve(dir.dir, nil)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []cobra.Completion
		for _, id := range folderIDs(f.Pending()) {
			if strings.HasPrefix(id, toComplete) {
				out = append(out, id)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
