package toolhook

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// withCommand's hand-made JSON decodes to the agent's input with only the
// command replaced, whatever bytes the command holds.
func TestWithCommandKeepsTheInput(t *testing.T) {
	input := json.RawMessage(`{"description":"d \"q\" é","timeout":60000,"run_in_background":true,"nested":{"a":
 [1, 2]},"command":"old"}`)
	for _, cmd := range []string{"new", "a\"b\\c\nd\te\x01\x1f</script>&'", "é ✓ \u2028", ""} {
		raw, err := withCommand(input, cmd)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(raw, '\n') >= 0 {
			t.Errorf("not one line: %s", raw)
		}
		var got, want map[string]any
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		json.Unmarshal(input, &want)
		want["command"] = cmd
		if !reflect.DeepEqual(got, want) {
			t.Errorf("got %v\nwant %v", got, want)
		}
	}
}
