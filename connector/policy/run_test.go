package policy

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestParseRunEnv: run: env: keep and drop take variable names with '*'
// and survive the signed cache.
func TestParseRunEnv(t *testing.T) {
	src := "version: 1\nrun:\n  env:\n    keep: [DEPLOY_TOKEN, \"CARGO_*\"]\n    drop: [\"*_DSN\", DATABASE_URL]\n"
	p, err := Parse("p.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := RunEnv{Keep: []string{"DEPLOY_TOKEN", "CARGO_*"}, Drop: []string{"*_DSN", "DATABASE_URL"}}
	if !reflect.DeepEqual(p.Run.Env, want) {
		t.Errorf("run.env = %+v, want %+v", p.Run.Env, want)
	}
	data, err := EncodeCache(p)
	if err != nil {
		t.Fatal(err)
	}
	q, err := DecodeCache(data, "p.yaml", p.SHA256)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(q.Run.Env, want) {
		t.Errorf("cached run.env = %+v, want %+v", q.Run.Env, want)
	}
}

func TestParseRunEnvErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string
	}{
		{"unknown run key", "version: 1\nrun: {envs: {}}\n", []string{`p.yaml:2: unknown key "envs"`}},
		{"unknown env key", "version: 1\nrun:\n  env:\n    allow: [A]\n", []string{`p.yaml:4: unknown key "allow"`}},
		{"bad name", "version: 1\nrun:\n  env:\n    keep: [\"A-B\"]\n", []string{"p.yaml:4: run.env.keep"}},
		{"path in drop", "version: 1\nrun:\n  env:\n    drop:\n      - OK_*\n      - \"a/b\"\n", []string{"p.yaml:6: run.env.drop"}},
		{"question mark", "version: 1\nrun: {env: {drop: [\"A?\"]}}\n", []string{"p.yaml:2: run.env.drop"}},
		{"list item", "version: 1\nrun: {env: {keep: [[A]]}}\n", []string{"p.yaml:2: run.env.keep"}},
		{"not a mapping", "version: 1\nrun: [env]\n", []string{"p.yaml:2:", "a mapping (env)"}},
		{"env not a mapping", "version: 1\nrun: {env: [A]}\n", []string{"p.yaml:2:", "a mapping (keep, drop)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, ErrInvalidPolicy) {
				t.Errorf("error does not wrap ErrInvalidPolicy: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}
