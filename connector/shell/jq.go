package shell

import "strings"

// jq parses its command line as its main.c does, not as getopt would:
//
//   - a word is an option when it is "-" followed by "-" or a letter
//     (so "-" and "-1" are operands), until "--";
//   - short options cluster (-nrf); -L takes the rest of its word or the
//     next word; --arg, --argjson, --rawfile and --slurpfile take two
//     words, --indent one; options are recognised anywhere, also after
//     --args;
//   - the first operand is the program, and with -f anywhere on the line
//     it is the name of the file holding the program;
//   - every later operand is an input file, except while --args (strings)
//     or --jsonargs (JSON texts) is in force: each switches the operands
//     that follow it, not the ones before;
//   - --rawfile and --slurpfile read their file, --run-tests reads the
//     files after it; a program can import modules and JSON data files
//     from any directory (import "x" as $d {search: "/"}), so a program
//     that imports, or whose text is unknown (a file, $VAR), escalates.

// jqState is where jq's parser stands.
type jqState struct {
	program  *Word
	fromFile bool
	strings  bool // --args or --jsonargs in force: operands are not files
	files    []Word
}

// jqTool: jq [OPTIONS] PROGRAM [FILES], read the way jq reads it.
func jqTool(w *walker, argv []Word, c cmdCtx) {
	args := argv[1:]
	var st jqState
	done := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.Dynamic && !done && mayBeOption(a):
			w.a.opaqueSrc(c.src, "jq has an argument of unknown value that could be an option that reads a file")
			return
		case done || !jqOptish(a.Text) || a.Dynamic:
			st.operand(a)
		case a.Text == "--":
			done = true
		case strings.HasPrefix(a.Text, "--"):
			i = w.jqLong(&st, args, i, c)
		default:
			i = jqShort(&st, args, i)
		}
		if i < 0 {
			return
		}
	}
	w.jqEffects(&st, c)
}

func jqOptish(t string) bool {
	return len(t) > 1 && t[0] == '-' && (t[1] == '-' || isLetter(t[1]))
}

func (st *jqState) operand(a Word) {
	switch {
	case st.program == nil:
		st.program = &a
	case !st.strings:
		st.files = append(st.files, a)
	}
}

// jqLong handles --NAME at args[i]; it returns the index of the last word
// used, or -1 after reporting an Opaque effect.
func (w *walker) jqLong(st *jqState, args []Word, i int, c cmdCtx) int {
	switch name := args[i].Text[2:]; name {
	case "args", "jsonargs":
		st.strings = true
	case "from-file":
		st.fromFile = true
	case "arg", "argjson":
		return i + 2
	case "rawfile", "slurpfile":
		if i+2 < len(args) {
			w.pathEffect(Read, args[i+2], "jq --"+name+" reads the file", c.src)
		}
		return i + 2
	case "indent", "library-path":
		return i + 1
	case "run-tests":
		w.each(Read, args[i+1:], "jq --run-tests reads the test files", c)
		return len(args)
	}
	return i
}

// jqShort handles a cluster -abc at args[i].
func jqShort(st *jqState, args []Word, i int) int {
	t := args[i].Text[1:]
	for j := 0; j < len(t); j++ {
		switch t[j] {
		case 'f':
			st.fromFile = true
		case 'L':
			if j+1 == len(t) {
				return i + 1 // -L DIR; -LDIR takes the rest of the word
			}
			return i
		}
	}
	return i
}

// jqEffects reports the program and the files jq reads.
func (w *walker) jqEffects(st *jqState, c cmdCtx) {
	p := st.program
	switch {
	case p == nil:
	case st.fromFile:
		w.pathEffect(Read, *p, "jq -f reads its program from the file", c.src)
		w.a.opaqueSrc(c.src, "jq -f runs a program from a file, which can import data files from any directory")
	case p.Dynamic:
		w.a.opaqueSrc(c.src, "jq program of unknown text, which can import data files from any directory")
	case jqImports(p.Text):
		w.a.opaqueSrc(c.src, "jq program imports modules or data files, from any directory it names")
	}
	w.each(Read, st.files, "jq reads the file", c)
}

// jqImports reports a program that may use import or include (as a word:
// .import and "import" strings count too, which only errs on the safe
// side).
func jqImports(prog string) bool {
	for _, kw := range []string{"import", "include"} {
		for i := strings.Index(prog, kw); i >= 0; {
			end := i + len(kw)
			before := i == 0 || !isWordByte(prog[i-1])
			after := end == len(prog) || !isWordByte(prog[end])
			if before && after {
				return true
			}
			next := strings.Index(prog[end:], kw)
			if next < 0 {
				break
			}
			i = end + next
		}
	}
	return false
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || isLetter(b)
}
