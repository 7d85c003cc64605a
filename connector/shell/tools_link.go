package shell

import "strings"

// linkOperands: every operand of ln is written, and so is what a link
// leads to (a link makes its target writable through it). A relative
// symbolic link's target is resolved from the directory the link is in,
// not from the working directory: `ln -s ../shared src/shared` leads to
// ./shared, which the old reading (../shared from here) put outside the
// project. The target is given joined to that directory without
// cleaning, so that the policy resolves the directory's own links before
// the `..` (src may itself be a link). When LINK is an existing
// directory, ln puts the link inside it: that place is given too. Any
// other form (hard links, -r, -t, several targets, unknown values) keeps
// every operand as written.
func (w *walker) linkOperands(p parsedArgs, files []Word, name string, c cmdCtx) {
	if len(files) != 2 || !p.has("-s", "--symbolic") || p.has("-r", "--relative", "-t", "--target-directory") ||
		files[0].Dynamic || files[1].Dynamic || files[0].Glob || files[1].Glob ||
		strings.HasPrefix(files[0].Text, "/") || strings.HasPrefix(files[0].Text, "~") || files[0].Text == "" {
		w.each(Write, files, name+" writes the file", c)
		return
	}
	target, link := files[0].Text, files[1].Text
	w.pathEffect(Write, files[1], name+" writes the file", c.src)
	dir := "."
	if i := strings.LastIndexByte(strings.TrimRight(link, "/"), '/'); i >= 0 {
		dir = link[:i]
	}
	for _, at := range []string{dir, strings.TrimRight(link, "/")} {
		w.pathEffect(Write, Word{Text: at + "/" + target}, name+" makes the link's target writable", c.src)
	}
}
