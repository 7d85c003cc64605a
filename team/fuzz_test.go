package team

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzVerifyDecision feeds Verify decisions decoded from arbitrary bytes
// (what a relay reads from NATS), seeded with a valid one and its near
// misses. Whatever the encoding's tricks (keys in another case, a key
// twice, another time zone, escapes), a decision is accepted only when
// every field the signature covers is what the trusted key signed.
func FuzzVerifyDecision(f *testing.F) {
	fx := newFixture(f)
	t0 := fx.shell("git push origin main")
	signed := fx.decide(fx.all, t0, Approve)
	valid, err := json.Marshal(signed)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(valid)
	f.Add(bytes.Replace(valid, []byte(`"verdict":"approved"`), []byte(`"verdict":"approved","Verdict":"denied"`), 1))
	f.Add(bytes.Replace(valid, []byte(`"reason"`), []byte(`"Reason"`), 1))
	f.Add(bytes.Replace(valid, []byte(`"request":"req-1"`), []byte(`"request":"req-1","REQUEST":"req-2"`), 1))
	f.Add(bytes.Replace(valid, []byte(`"verdict":"approved"`), []byte(`"verdict":"appr\u006fved"`), 1))
	f.Add([]byte(`{"v":1}`))
	f.Add([]byte(`null`))
	want := signedBytes(&signed)
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Decision
		if json.Unmarshal(data, &d) != nil {
			return
		}
		if _, err := Verify(&d, t0, fx.pol, fx.root, fx.now); err == nil && !bytes.Equal(signedBytes(&d), want) {
			t.Fatalf("accepted a decision nobody signed: %+v", d)
		}
	})
}
