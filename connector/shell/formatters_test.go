package shell

import "testing"

func TestFormattersAdversarial(t *testing.T) {
	runShows(t, [][2]string{
		{"black /tmp/x.py", "write:/tmp/x.py"},
		{"black -l 100 ~/other", "write:~/other"},
		{"ruff format /tmp/x.py", "write:/tmp/x.py"},
		{"ruff check --fix ../other", "write:../other"},
		{"ruff check -o /tmp/report .", "write:/tmp/report"},
		{"ruff check --cache-dir=/tmp/c .", "write:/tmp/c"},
		{"prettier --write /tmp/x.js", "write:/tmp/x.js"},
		{"prettier -w ~/x.js", "write:~/x.js"},
		{"prettier --plugin=/tmp/evil.js --check .", "opaque"},
		{"prettier --config /tmp/p.config.js --check .", "opaque"},
		{"eslint --fix /tmp/x.js", "write:/tmp/x.js"},
		{"eslint -o /tmp/out.txt .", "write:/tmp/out.txt"},
		{"eslint --rulesdir /tmp/rules .", "opaque"},
		{"eslint -c ~/evil.config.js .", "opaque"},
		{"eslint -f /tmp/formatter.js .", "opaque"},
		{"tsc /tmp/x.ts", "write:/tmp/x.ts"},
		{"tsc --outDir /tmp/out", "write:/tmp/out"},
		{"tsc -p . --tsBuildInfoFile /tmp/b", "write:/tmp/b"},
		{"mypy --cache-dir /tmp/c .", "write:/tmp/c"},
		{"mypy --junit-xml=/tmp/j.xml src", "write:/tmp/j.xml"},
		{"mypy --config-file /tmp/mypy.ini .", "opaque"},
		{"mypy --python-executable /tmp/py .", "opaque"},
		{"black $ARGS", "opaque"},
	})
}

func TestFormattersEveryday(t *testing.T) {
	runEffectCases(t, []effectCase{
		{"black check", "black --check .", []string{"exec black --check .", "read ."}},
		{"black", "black src", []string{"exec black src", "write src"}},
		{"ruff check", "ruff check", []string{"exec ruff check", "read ."}},
		{"ruff format", "ruff format src", []string{"exec ruff format src", "write src"}},
		{"prettier check", "prettier --check 'src/**/*.ts'", []string{"exec prettier --check src/**/*.ts", "read src/**/*.ts"}},
		{"eslint", "eslint --max-warnings 0 src", []string{"exec eslint --max-warnings 0 src", "read src"}},
		{"tsc noEmit", "tsc --noEmit -p .", []string{"exec tsc --noEmit -p .", "read ."}},
		{"mypy", "mypy src", []string{"exec mypy src", "read src"}},
	})
}
