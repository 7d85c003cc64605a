package claude

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/sandbox-dev/sandbox/connector/flatjson"
)

var flatSeeds = []string{
	`{"session_id":"s","transcript_path":"/t","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status --short","description":"see"},"tool_use_id":"toolu_1"}`,
	`{"hook_event_name":"PostToolUse","tool_input":{"command":"echo \"a\\tb\"\n","timeout":120000,"run_in_background":false},"tool_response":{"stdout":"x","interrupted":false,"n":[1,2.5e-3,-0,{"a":null}]}}`,
	`{"command":"ls \u00e9","description":"unicode escape"}`,
	`{"command":"ls é","description":"raw UTF-8","replace_all":true}`,
	`{"Command":"case","command":"x"}`,
	`{"command":"a","command":"b"}`,
	`{"command":null,"content":null,"replace_all":null,"tool_input":null}`,
	`{"file_path":"/a","edits":[{"old_string":"x","new_string":"y"}]}`,
	`{"command":1}`, `{"command":"\x01"}`, "{\"command\":\"\xff\"}", `{"a":01}`, `{"a":1.}`, `{"a":-}`, `{"a":tru}`,
	` { "cwd" : "/p" , "x" : [ ] , "y" : { } } `, `{}`, `[]`, `{"a":1}x`, `{"a":"\/\b\f\r"}`, `{"a":"\q"}`,
	"{\"\u017fession_id\":\"long s\"}",
}

func TestFlatToolInputMatchesEncodingJSON(t *testing.T) {
	for _, s := range flatSeeds {
		checkFlatToolInput(t, []byte(s))
	}
}

func FuzzFlatToolInput(f *testing.F) {
	for _, s := range flatSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkFlatToolInput)
}

func checkFlatToolInput(t *testing.T, data []byte) {
	checkFlat(t, data, func(in *toolInput) map[string]flatjson.Field { return in.flatFields() })
}

func checkFlat[T any](t *testing.T, data []byte, fields func(*T) map[string]flatjson.Field) {
	var fast T
	if !flatjson.Object(data, fields(&fast)) {
		return
	}
	var slow T
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("%q: the fast path took what encoding/json refuses: %v", data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\nfast %+v\njson %+v", data, fast, slow)
	}
}
