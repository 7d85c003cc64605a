package agents

import (
	"errors"
	"testing"
)

func TestParseTasks(t *testing.T) {
	t.Parallel()
	tasks, err := ParseTasks([]byte("tasks:\n  - {name: a, task: fix it}\n  - {name: b, agent: codex, task: t, base: main}\n  - {name: c, command: [sh, -c, x]}\n"))
	if err != nil || len(tasks) != 3 || tasks[1].Agent != "codex" || tasks[1].Base != "main" || tasks[2].Command[2] != "x" {
		t.Fatalf("ParseTasks = %+v, %v", tasks, err)
	}
	for name, src := range map[string]string{
		"empty":            "tasks: []\n",
		"no tasks key":     "task: []\n",
		"unknown key":      "tasks:\n  - {name: a, task: t, prompt: x}\n",
		"bad name":         "tasks:\n  - {name: A/b, task: t}\n",
		"same name twice":  "tasks:\n  - {name: a, task: t}\n  - {name: a, task: u}\n",
		"task and command": "tasks:\n  - {name: a, task: t, command: [x]}\n",
		"neither":          "tasks:\n  - {name: a}\n",
		"not yaml":         "tasks: [\n",
	} {
		if _, err := ParseTasks([]byte(src)); !errors.Is(err, ErrBadTasks) {
			t.Errorf("%s: %v, want ErrBadTasks", name, err)
		}
	}
}
