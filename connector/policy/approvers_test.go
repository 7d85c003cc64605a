package policy

import (
	"crypto/ed25519"
	"slices"
	"strings"
	"testing"
)

func testKey(t *testing.T, seed byte) string {
	t.Helper()
	s := make([]byte, ed25519.SeedSize)
	s[0] = seed
	return FormatApproverKey(ed25519.NewKeyFromSeed(s).Public().(ed25519.PublicKey))
}

// The approvers: section: what parses, what each bad entry says, and
// that the signed cache carries it.
func TestApprovers(t *testing.T) {
	k1, k2 := testKey(t, 1), testKey(t, 2)
	src := "version: 1\napprovers:\n" +
		"  - {name: alice@sec, key: \"" + k1 + "\"}\n" +
		"  - name: oncall\n    key: \"" + k2 + "\"\n    scope: [\"kind:shell\", \"command:git push **\", \"host:ci-*\", \"project:payments\"]\n"
	p, err := Parse("policy.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Approver{{Name: "alice@sec", Key: k1}, {Name: "oncall", Key: k2, Scope: []string{"kind:shell", "command:git push **", "host:ci-*", "project:payments"}}}
	if !slices.EqualFunc(p.Approvers, want, func(a, b Approver) bool {
		return a.Name == b.Name && a.Key == b.Key && slices.Equal(a.Scope, b.Scope)
	}) {
		t.Fatalf("approvers = %+v", p.Approvers)
	}
	if a, err := p.Approver(k2); err != nil || a.Name != "oncall" {
		t.Errorf("Approver(k2) = %+v, %v", a, err)
	}
	if _, err := p.Approver(testKey(t, 3)); err == nil {
		t.Error("an unlisted key was found")
	}
	data, err := EncodeCache(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := DecodeCache(data, "policy.yaml", p.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if len(q.Approvers) != 2 || q.Approvers[1].Scope[1] != "command:git push **" {
		t.Errorf("the cache lost the approvers: %+v", q.Approvers)
	}

	bad := []struct{ entry, msg string }{
		{"{name: a, key: \"ed25519:AAAA\"}", "not 32 bytes"},
		{"{name: a, key: \"" + strings.TrimPrefix(k1, "ed25519:") + "\"}", "want ed25519:"},
		{"{name: a}", "has no key"},
		{"{name: \"a b\", key: \"" + k1 + "\"}", "letters, digits"},
		{"{name: a, key: \"" + k1 + "\", scope: [\"kind:exec\"]}", "the kind is one of"},
		{"{name: a, key: \"" + k1 + "\", scope: [\"user:bob\"]}", "want kind:K"},
		{"{name: a, key: \"" + k1 + "\", scope: [\"host:[\"]}", "syntax error in pattern"},
		{"{name: a, key: \"" + k1 + "\", scope: [\"command:\"]}", "want kind:K"},
		{"{name: a, key: \"" + k1 + "\", scope: [{x: 1}]}", "a scope entry is a string"},
		{"{name: a, key: \"" + k1 + "\", bogus: 1}", "bogus"},
	}
	for _, b := range bad {
		_, err := Parse("policy.yaml", []byte("version: 1\napprovers:\n  - "+b.entry+"\n"))
		if err == nil || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%s: %v, want %q", b.entry, err, b.msg)
		}
	}
	_, err = Parse("policy.yaml", []byte("version: 1\napprovers:\n  - {name: a, key: \""+k1+"\"}\n  - {name: b, key: \""+k1+"\"}\n"))
	if err == nil || !strings.Contains(err.Error(), "listed twice") {
		t.Errorf("a key listed twice: %v", err)
	}
}

// keys trust's edit: appended to the list or as a new section, comments
// and layout kept, refused when the key or name is there or the list is
// one it cannot extend.
func TestAddApprover(t *testing.T) {
	k1, k2, k3 := testKey(t, 1), testKey(t, 2), testKey(t, 3)
	src := DefaultYAML()
	out, err := AddApprover("policy.yaml", src, Approver{Name: "alice", Key: k1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), string(src)) {
		t.Error("the default policy's text was not kept")
	}
	out, err = AddApprover("policy.yaml", out, Approver{Name: "bob", Key: k2, Scope: []string{"kind:shell", `command:git push "origin" **`}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse("policy.yaml", out)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Approvers) != 2 || p.Approvers[1].Scope[1] != `command:git push "origin" **` {
		t.Fatalf("approvers = %+v", p.Approvers)
	}
	// a section followed by others, with a comment before the next
	mid := "version: 1\napprovers:\n  - {name: alice, key: \"" + k1 + "\"}\n\n# the hook's wait\nhook:\n  wait: 30s\n"
	out, err = AddApprover("policy.yaml", []byte(mid), Approver{Name: "carol", Key: k3})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "carol") || !strings.HasSuffix(string(out), "\n\n# the hook's wait\nhook:\n  wait: 30s\n") {
		t.Errorf("inserted in the wrong place:\n%s", out)
	}
	for _, tc := range []struct {
		src string
		a   Approver
		msg string
	}{
		{mid, Approver{Name: "alice2", Key: k1}, "lists alice already"},
		{mid, Approver{Name: "alice", Key: k2}, "lists alice already"},
		{"version: 1\napprovers: [{name: alice, key: \"" + k1 + "\"}]\n", Approver{Name: "bob", Key: k2}, "by hand"},
		{mid, Approver{Name: "b b", Key: k2}, "letters, digits"},
		{mid, Approver{Name: "bob", Key: "ed25519:xx"}, "not 32 bytes"},
		{mid, Approver{Name: "bob", Key: k2, Scope: []string{"kind:exec"}}, "the kind is one of"},
	} {
		if _, err := AddApprover("policy.yaml", []byte(tc.src), tc.a); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: %v, want %q", tc.a, err, tc.msg)
		}
	}
}
