package flatjson

import (
	"encoding/json"
	"reflect"
	"testing"
)

// doc has a field of every kind Object stores.
type doc struct {
	S   string          `json:"s"`
	P   *string         `json:"p"`
	B   bool            `json:"b"`
	Raw json.RawMessage `json:"raw"`
}

func (d *doc) fields() map[string]Field {
	return map[string]Field{"s": String(&d.S), "p": StringPtr(&d.P), "b": Bool(&d.B), "raw": Raw((*[]byte)(&d.Raw))}
}

var seeds = []string{
	`{"s":"a\"b\\c\/d\b\f\n\r\t","p":"x","b":true,"raw":{"k":[1,-2.5e+3,null,false,"é"]},"other":[]}`,
	`{"s":null,"p":null,"b":null,"raw":null}`, `{}`, ` { "s" : "x" } `,
	`{"s":"\u0041"}`, `{"S":"case"}`, `{"s":"a","s":"b"}`, `{"s":1}`, `{"b":"true"}`, `{"raw":tru}`,
	`{"n":01}`, `{"n":1.}`, `{"n":-}`, `{"n":1e}`, "{\"s\":\"\x01\"}", "{\"s\":\"\xff\"}", `{"s":"x"} y`, `[]`, `{"s":"x",}`,
}

func TestObjectAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		check(t, []byte(s))
	}
	var d doc
	if !Object([]byte(seeds[0]), d.fields()) {
		t.Error("a plain document takes the slow path")
	}
}

// FuzzObject: whenever Object takes a document, encoding/json decodes it
// without error to the same value.
func FuzzObject(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(check)
}

func check(t *testing.T, data []byte) {
	var fast, slow doc
	if !Object(data, fast.fields()) {
		return
	}
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("%q: Object took what encoding/json refuses: %v", data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%q:\nObject %+v\njson   %+v", data, fast, slow)
	}
}
