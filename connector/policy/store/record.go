package store

import (
	"encoding/json"
	"time"

	"github.com/sandbox-dev/sandbox/connector/flatjson"
)

// decodeRecord decodes an accepted-policy record: without encoding/json
// (whose first use costs a hook about 50 us) when the record is as Accept
// writes it, else with it; FuzzDecodeRecord checks that both agree.
func decodeRecord(js []byte) (acceptedRecord, error) {
	if rec, ok := decodeFlatRecord(js); ok {
		return rec, nil
	}
	var rec acceptedRecord
	err := json.Unmarshal(js, &rec)
	return rec, err
}

// decodeFlatRecord is the fast path (connector/flatjson).
func decodeFlatRecord(js []byte) (rec acceptedRecord, ok bool) {
	ok = flatjson.Object(js, map[string]flatjson.Field{
		"root": flatjson.String(&rec.Root), "sha256": flatjson.String(&rec.SHA256),
		"mac": flatjson.String(&rec.MAC), "accepted_at": canonicalTime(&rec.AcceptedAt),
	})
	return rec, ok
}

// canonicalTime stores a time written as encoding/json writes one
// (RFC 3339 with the shortest fraction); anything else is left to
// encoding/json. Null leaves it, as with encoding/json.
func canonicalTime(dst *time.Time) flatjson.Field {
	return func(v flatjson.Value) bool {
		switch v.Kind {
		case 'n':
			return true
		case '"':
			t, err := time.Parse(time.RFC3339Nano, v.Str)
			if err != nil || t.Format(time.RFC3339Nano) != v.Str {
				return false
			}
			*dst = t
			return true
		}
		return false
	}
}
