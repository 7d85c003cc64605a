package jsonedit

import (
	"encoding/json"
	"testing"
)

// FuzzRoundTrip: on any JSON object, adding sandbox's entries gives
// valid JSON, and undoing them gives back the same bytes.
func FuzzRoundTrip(f *testing.F) {
	for _, s := range []string{"{}", "{\"a\":[]}", "{\n\t\"hooks\": {\"ev\": [1]}\n}", "{ \"servers\" : { } }",
		"{\"hooks\":{\"ev\":[{\"command\":\"c\"}]}}", "  {\"x\": \"\\u00e9\"}  "} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, src []byte, first bool) {
		d, err := Parse("f.json", src)
		if err != nil {
			return
		}
		where := Last
		if first {
			where = First
		}
		e := testEdit("sandbox hook fuzz", where)
		sites, err := e.Add(d)
		if err != nil {
			return
		}
		if !json.Valid(d.Bytes()) {
			t.Fatalf("invalid after add:\n%q\n%q", src, d.Bytes())
		}
		if err := d.Undo(sites, e.Ours(e.Command)); err != nil {
			t.Fatal(err)
		}
		if string(d.Bytes()) != string(src) {
			t.Fatalf("round trip:\n%q\n%q", src, d.Bytes())
		}
	})
}
