package store

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDecodeRecord(t *testing.T) {
	at := time.Date(2026, 11, 30, 10, 0, 0, 123456789, time.UTC)
	js, err := json.MarshalIndent(acceptedRecord{Root: "/p/ré", SHA256: "ab", AcceptedAt: at, MAC: "cd"}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeFlatRecord(js); !ok {
		t.Fatalf("the record as Accept writes it takes the slow path:\n%s", js)
	}
	for _, tc := range []struct {
		name, js string
		flat     bool // decodeFlatRecord takes it
	}{
		{"written", string(js), true},
		{"escaped quote", `{"root":"/a\"b","sha256":"x","accepted_at":"2026-11-30T10:00:00Z","mac":"m"}`, true},
		{"unicode escape", `{"root":"/\u0061","sha256":"x","accepted_at":"2026-11-30T10:00:00Z","mac":"m"}`, false},
		{"repeated key", `{"root":"/a","root":"/b","sha256":"x","accepted_at":"2026-11-30T10:00:00Z","mac":"m"}`, false},
		{"unknown key", `{"root":"/a","extra":"y","sha256":"x","accepted_at":"2026-11-30T10:00:00Z","mac":"m"}`, true},
		{"case-folded key", `{"ROOT":"/a","sha256":"x","accepted_at":"2026-11-30T10:00:00Z","mac":"m"}`, false},
		{"offset time", `{"root":"/a","sha256":"x","accepted_at":"2026-11-30T10:00:00+01:00","mac":"m"}`, true},
		{"odd time", `{"root":"/a","sha256":"x","accepted_at":"2026-11-30T10:00:00.50Z","mac":"m"}`, false},
		{"trailing", `{"root":"/a"} x`, false},
		{"not an object", `["root"]`, false},
		{"number", `{"root":1}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := decodeFlatRecord([]byte(tc.js)); ok != tc.flat {
				t.Errorf("flat path %v, want %v", ok, tc.flat)
			}
			checkRecordAgrees(t, []byte(tc.js))
		})
	}
}

// FuzzDecodeRecord: whenever the flat path takes a record, encoding/json
// decodes it to the same fields.
func FuzzDecodeRecord(f *testing.F) {
	f.Add([]byte(`{"root":"/a","sha256":"x","accepted_at":"2026-11-30T10:00:00Z","mac":"m"}`))
	f.Add([]byte("{\n  \"mac\": \"m\",\n  \"root\": \"/é\"\n}"))
	f.Fuzz(checkRecordAgrees)
}

func checkRecordAgrees(t *testing.T, js []byte) {
	flat, ok := decodeFlatRecord(js)
	if !ok {
		return
	}
	var slow acceptedRecord
	if err := json.Unmarshal(js, &slow); err != nil {
		t.Fatalf("%q: flat path took what encoding/json refuses: %v", js, err)
	}
	if flat.Root != slow.Root || flat.SHA256 != slow.SHA256 || flat.MAC != slow.MAC || !flat.AcceptedAt.Equal(slow.AcceptedAt) ||
		flat.AcceptedAt.Format(time.RFC3339Nano) != slow.AcceptedAt.Format(time.RFC3339Nano) {
		t.Fatalf("%q: flat %+v, encoding/json %+v", js, flat, slow)
	}
}
