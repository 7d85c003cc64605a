package shell

import "sync"

// Options shared by several tools.
var (
	grepPattern = []string{"-e", "-f", "--regexp", "--file"}
	cpLinks     = []string{"-s", "-l", "--symbolic-link", "--link"}
)

// toolSpecs are the tools described by a table. The table is built on
// first use: most processes (and most hook calls) never look it up, and
// building it costs a short process tens of microseconds.
var toolSpecs = sync.OnceValue(func() map[string]*toolSpec {
	return map[string]*toolSpec{
		// Readers.
		"cat":  {role: roleRead},
		"tac":  {role: roleRead, opts: optSpec{argShort: "s", argLong: []string{"--separator"}}},
		"nl":   {role: roleRead, opts: optSpec{argShort: "bdfhilnsvw"}},
		"rev":  {role: roleRead},
		"head": {role: roleRead, opts: optSpec{argShort: "nc", argLong: []string{"--lines", "--bytes"}}},
		"tail": {role: roleRead, opts: optSpec{argShort: "ncs", argLong: []string{"--lines", "--bytes", "--sleep-interval", "--pid", "--max-unchanged-stats"}}},
		"more": {role: roleRead, opts: optSpec{argShort: "n"}},
		"wc":   {role: roleRead, listOpts: []string{"--files0-from"}, opts: optSpec{argLong: []string{"--files0-from"}}},
		"grep": grepSpec, "egrep": grepSpec, "fgrep": grepSpec,
		"rg": {role: roleRead, pattern: true, dot: true, recurse: true,
			patternOpts: []string{"-e", "-f", "--regexp", "--file", "--files", "--type-list"},
			opts: optSpec{argShort: "ABCEefgjMmrtTd", argLong: []string{"--after-context", "--before-context",
				"--context", "--encoding", "--regexp", "--file", "--glob", "--iglob", "--threads", "--max-columns",
				"--max-count", "--replace", "--type", "--type-not", "--max-depth", "--max-filesize", "--path-separator",
				"--pre", "--pre-glob", "--sort", "--sortr", "--type-add", "--type-clear", "--colors", "--context-separator",
				"--field-context-separator", "--field-match-separator", "--dfa-size-limit", "--regex-size-limit",
				"--engine", "--ignore-file", "--hostname-bin", "--hyperlink-format", "--generate"}},
			readOpts:   []string{"-f", "--file", "--ignore-file"},
			globOpts:   []string{"-g", "--glob", "--iglob"},
			opaqueOpts: []string{"--pre runs a program on every file", "--hostname-bin runs a program"}},
		"ls":   {role: roleRead, dot: true, opts: optSpec{argShort: "ITw", argLong: []string{"--ignore", "--hide", "--tabsize", "--width", "--block-size", "--format", "--indicator-style", "--quoting-style", "--sort", "--time", "--time-style"}}},
		"stat": {role: roleRead, opts: optSpec{argShort: "c", argLong: []string{"--format", "--printf"}}},
		"file": {role: roleRead, readOpts: []string{"-m", "--magic-file"}, listOpts: []string{"-f", "--files-from"}, opts: optSpec{argShort: "mfFeP", argLong: []string{"--files-from", "--magic-file", "--separator", "--exclude", "--parameter"}}},
		"diff": {role: roleRead, recurse: true, readOpts: []string{"-X", "--exclude-from", "--from-file", "--to-file"},
			opts: optSpec{argShort: "UCxXIFDWL", argLong: []string{"--exclude", "--exclude-from",
				"--ignore-matching-lines", "--show-function-line", "--ifdef", "--width", "--label", "--from-file", "--to-file",
				"--line-format", "--old-line-format", "--new-line-format", "--unchanged-line-format", "--horizon-lines", "--tabsize"}}},
		"cmp": {role: roleRead, opts: optSpec{argShort: "in", argLong: []string{"--ignore-initial", "--bytes"}}},
		"sort": {role: roleRead, writeOpts: []string{"-o", "--output"}, readOpts: []string{"--random-source"}, listOpts: []string{"--files0-from"},
			opts:       optSpec{argShort: "kotTS", argLong: []string{"--key", "--output", "--field-separator", "--temporary-directory", "--buffer-size", "--parallel", "--batch-size", "--compress-program", "--files0-from", "--random-source", "--sort"}},
			opaqueOpts: []string{"--compress-program runs a program"}},
		"uniq": {role: roleInOut, opts: optSpec{argShort: "fsw", argLong: []string{"--skip-fields", "--skip-chars", "--check-chars"}}},
		// Text utilities that print (parts of) their files.
		"comm":     {role: roleRead, opts: optSpec{argLong: []string{"--output-delimiter"}}},
		"paste":    {role: roleRead, opts: optSpec{argShort: "d", argLong: []string{"--delimiters"}}},
		"fold":     {role: roleRead, opts: optSpec{argShort: "w", argLong: []string{"--width"}}},
		"join":     {role: roleRead, opts: optSpec{argShort: "aejot12"}},
		"expand":   {role: roleRead, opts: optSpec{argShort: "t", argLong: []string{"--tabs"}}},
		"unexpand": {role: roleRead, opts: optSpec{argShort: "t", argLong: []string{"--tabs"}}},
		"fmt":      {role: roleRead, opts: optSpec{argShort: "pgw", argLong: []string{"--prefix", "--goal", "--width"}}},
		"pr":       {role: roleRead, opts: optSpec{argShort: "hlwoWN", argLong: []string{"--header", "--length", "--width", "--indent", "--page-width", "--first-line-number", "--pages", "--columns"}}},
		"tsort":    {role: roleRead},
		"shuf": {role: roleRead, writeOpts: []string{"-o", "--output"}, readOpts: []string{"--random-source"},
			opts: optSpec{argShort: "ino", argLong: []string{"--input-range", "--head-count", "--output", "--random-source"}}},
		"cut": {role: roleRead, opts: optSpec{argShort: "bcdf", argLong: []string{"--bytes", "--characters", "--delimiter", "--fields", "--output-delimiter"}}},
		// macOS base64 writes -o/--output FILE (GNU has no such option).
		"base64":  {role: roleRead, writeOpts: []string{"-o", "--output"}, opts: optSpec{argShort: "wo", argLong: []string{"--wrap", "--output"}}},
		"xxd":     {role: roleInOut, opts: optSpec{argShort: "cglosn", argLong: []string{"-cols", "-groupsize", "-len", "-seek", "-name"}}},
		"od":      {role: roleRead, opts: optSpec{argShort: "AjNSt", argLong: []string{"--address-radix", "--skip-bytes", "--read-bytes", "--format", "--endian"}}},
		"hexdump": {role: roleRead, readOpts: []string{"-f"}, opts: optSpec{argShort: "efns"}},
		"strings": {role: roleRead, opts: optSpec{argShort: "ntTe", argLong: []string{"--bytes", "--radix", "--target", "--encoding", "--output-separator"}}},
		"md5sum":  {role: roleRead}, "sha1sum": {role: roleRead}, "sha224sum": {role: roleRead},
		"sha256sum": {role: roleRead}, "sha384sum": {role: roleRead}, "sha512sum": {role: roleRead},
		"b2sum": {role: roleRead}, "cksum": {role: roleRead}, "sum": {role: roleRead},
		"tree": {role: roleRead, dot: true, writeOpts: []string{"-o"}, globOpts: []string{"-P", "-I"},
			opts: optSpec{argShort: "LPIoHT", argLong: []string{"--filelimit", "--charset", "--sort", "--timefmt"}}},
		"du": {role: roleRead, dot: true, readOpts: []string{"-X", "--exclude-from"}, listOpts: []string{"--files0-from"},
			opts: optSpec{argShort: "dBtX", argLong: []string{"--max-depth", "--block-size", "--threshold", "--exclude", "--exclude-from", "--files0-from", "--time-style"}, flagLong: []string{"--time"}}},
		"column": {role: roleRead, opts: optSpec{argShort: "nONlEHRTWripcos", argLong: []string{"--table-name", "--table-order", "--table-columns", "--table-columns-limit", "--table-noextreme", "--table-hide", "--table-right", "--table-truncate", "--table-wrap", "--tree", "--tree-id", "--tree-parent", "--output-width", "--output-separator", "--separator"}}},
		"bat":    {role: roleRead, opts: optSpec{argShort: "lHrm", argLong: []string{"--language", "--highlight-line", "--line-range", "--map-syntax", "--theme", "--style", "--tabs", "--wrap", "--terminal-width", "--pager", "--paging"}}, opaqueOpts: []string{"--pager runs a program"}},
		"man": {role: roleNone, opts: optSpec{argShort: "PHMLmCSesR", argLong: []string{"--pager", "--html", "--manpath", "--locale", "--systems", "--config-file", "--sections", "--extension", "--preprocessor", "--recode"}},
			opaqueOpts: []string{"-P runs a pager program", "--pager runs a program", "-H runs a browser", "--html runs a browser", "-p runs preprocessors", "--preprocessor runs preprocessors"}},

		// Writers.
		"tee":      {role: roleWrite},
		"rm":       {role: roleWrite},
		"rmdir":    {role: roleWrite},
		"unlink":   {role: roleWrite},
		"shred":    {role: roleWrite, opts: optSpec{argShort: "ns", argLong: []string{"--iterations", "--size", "--random-source", "--remove"}}},
		"touch":    {role: roleWrite, readOpts: []string{"-r", "--reference"}, opts: optSpec{argShort: "rdt", argLong: []string{"--reference", "--date", "--time"}}},
		"mkdir":    {role: roleWrite, opts: optSpec{argShort: "m", argLong: []string{"--mode"}}},
		"mkfifo":   {role: roleWrite, opts: optSpec{argShort: "m", argLong: []string{"--mode"}}},
		"truncate": {role: roleWrite, readOpts: []string{"-r", "--reference"}, opts: optSpec{argShort: "sr", argLong: []string{"--size", "--reference"}}},
		"cp":       {role: roleCopy, linkOpts: cpLinks, recurseOpts: []string{"-r", "-R", "-a", "--recursive", "--archive"}, writeOpts: []string{"-t", "--target-directory"}, opts: optSpec{argShort: "St", argLong: []string{"--target-directory", "--suffix", "--sparse", "--no-preserve"}}},
		"install":  {role: roleCopy, writeOpts: []string{"-t", "--target-directory"}, opts: optSpec{argShort: "gmoSt", argLong: []string{"--group", "--mode", "--owner", "--suffix", "--target-directory", "--strip-program"}}, opaqueOpts: []string{"--strip-program runs a program"}},
		"mv":       {role: roleMove, writeOpts: []string{"-t", "--target-directory"}, opts: optSpec{argShort: "St", argLong: []string{"--target-directory", "--suffix"}}},
		"ln":       {role: roleLink, writeOpts: []string{"-t", "--target-directory"}, opts: optSpec{argShort: "St", argLong: []string{"--target-directory", "--suffix"}}},
		"link":     {role: roleLink},
		"chown":    {role: roleWrite, skip: 1, skipUnless: []string{"--reference"}, opts: optSpec{argLong: []string{"--from"}}},
		"chgrp":    {role: roleWrite, skip: 1, skipUnless: []string{"--reference"}},
	}
})

var grepSpec = &toolSpec{role: roleRead, pattern: true, patternOpts: grepPattern,
	recurseOpts: []string{"-r", "-R", "--recursive", "--dereference-recursive"},
	dotIf:       []string{"-r", "-R", "--recursive", "--dereference-recursive"},
	readOpts:    []string{"-f", "--file", "--exclude-from"},
	globOpts:    []string{"--include", "--exclude", "--exclude-dir"},
	opts: optSpec{argShort: "efABCmdD", argLong: []string{"--regexp", "--file", "--after-context", "--before-context",
		"--context", "--max-count", "--directories", "--devices", "--include", "--exclude", "--exclude-dir",
		"--exclude-from", "--label", "--binary-files", "--group-separator"}}}
