package shell

import "testing"

// TestHeredocMessage: "$(cat <<'EOF' ... EOF)" inside double quotes is its
// body, so a commit message written so is a literal word (it was an
// unknown value, standing where any option could be); what the body says
// is judged as that word, and every other form stays unknown.
func TestHeredocMessage(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // the git command's last word; "" when it must stay unknown
	}{
		{"git commit -m \"$(cat <<'EOF'\nAdd x\n\nBody.\nEOF\n)\"", "Add x\n\nBody."},
		{"git commit -m \"$(cat <<\"EOF\"\nfix\n\n\nEOF\n)\"", "fix"},
		{"git commit -m \"$(cat <<\\EOF\nfix\nEOF\n)\"", "fix"},
		{"git commit -m \"$(cat <<EOF\n$(id)\nEOF\n)\"", ""},
		{"git commit -m \"$(cat <<EOF\nplain\nEOF\n)\"", ""},
		{"git commit -m \"$(cat -v <<'EOF'\nx\nEOF\n)\"", ""},
		{"git commit -m \"$(cat <<'EOF' 2>/dev/null\nx\nEOF\n)\"", ""},
		{"git commit -m \"$(cat <<'EOF'; id\nx\nEOF\n)\"", ""},
		{"git commit -m $(cat <<'EOF'\nx\nEOF\n)", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			effs := Analyze(tc.in, testOpts)
			var last *Word
			for _, e := range effs {
				if e.Kind == Exec && len(e.Args) > 0 && e.Args[0].Text == "git" {
					last = &e.Args[len(e.Args)-1]
				}
			}
			switch {
			case last == nil:
				t.Fatalf("no git command: %q", briefs(effs))
			case tc.want == "" && !last.Dynamic:
				t.Errorf("folded to %q, want an unknown value", last.Text)
			case tc.want != "" && (last.Dynamic || last.Text != tc.want):
				t.Errorf("message = %q (dynamic %v), want %q", last.Text, last.Dynamic, tc.want)
			}
		})
	}
	// The folded body is a word like any other: an option in it counts.
	if effs := Analyze("git diff \"$(cat <<'EOF'\n--output=/etc/x\nEOF\n)\"", testOpts); !surfaces(effs, "write:/etc/x") {
		t.Errorf("git diff --output from a here-document hidden: %q", briefs(effs))
	}
}
