package natsconn

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
)

// A JWT credentials file (what `nsc` makes for a user of an operator's
// account): the server, in operator mode, takes the user's JWT and the
// nonce signed with its seed; a JWT the account did not sign, or a seed
// that is not the JWT's user, is refused.
func TestJWTCreds(t *testing.T) {
	op, _ := nkeys.CreateOperator()
	opPub, _ := op.PublicKey()
	opClaims := jwt.NewOperatorClaims(opPub)
	opJWT, err := opClaims.Encode(op)
	if err != nil {
		t.Fatal(err)
	}
	opDecoded, err := jwt.DecodeOperatorClaims(opJWT)
	if err != nil {
		t.Fatal(err)
	}
	acc, _ := nkeys.CreateAccount()
	accPub, _ := acc.PublicKey()
	accJWT, err := jwt.NewAccountClaims(accPub).Encode(op)
	if err != nil {
		t.Fatal(err)
	}
	resolver := &server.MemAccResolver{}
	if err := resolver.Store(accPub, accJWT); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, func(o *server.Options) {
		o.JetStream = false
		o.TrustedOperators = []*jwt.OperatorClaims{opDecoded}
		o.AccountResolver = resolver
	})

	creds := func(name string, signer nkeys.KeyPair, user nkeys.KeyPair, seedOf nkeys.KeyPair) string {
		pub, _ := user.PublicKey()
		uc := jwt.NewUserClaims(pub)
		uc.IssuerAccount = accPub
		userJWT, err := uc.Encode(signer)
		if err != nil {
			t.Fatal(err)
		}
		seed, _ := seedOf.Seed()
		// the format nsc writes (jwt.FormatUserConfig refuses a seed
		// that is not the JWT's user, which is what the test needs)
		data := []byte("-----BEGIN NATS USER JWT-----\n" + userJWT + "\n------END NATS USER JWT------\n\n" +
			"************************* IMPORTANT *************************\n\n" +
			"-----BEGIN USER NKEY SEED-----\n" + string(seed) + "\n------END USER NKEY SEED------\n")
		if seedOf == user {
			if _, err := jwt.FormatUserConfig(userJWT, seed); err != nil {
				t.Fatal(err)
			}
		}
		path := filepath.Join(t.TempDir(), name+".creds")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	alice, _ := nkeys.CreateUser()
	c := connect(t, s.ClientURL(), Options{Creds: creds("alice", acc, alice, alice)})
	sub, err := c.Subscribe("team.jwt", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Publish("team.jwt", "", nil, []byte("signed in")); err != nil {
		t.Fatal(err)
	}
	if m := <-sub.C(); string(m.Data) != "signed in" {
		t.Errorf("got %q", m.Data)
	}

	stranger, _ := nkeys.CreateAccount() // not the operator's account
	mallory, _ := nkeys.CreateUser()
	if _, err := Connect(ctx(t), Options{URL: s.ClientURL(), Creds: creds("forged", stranger, mallory, mallory)}); err == nil {
		t.Error("a user JWT signed by an unknown account was let in")
	}
	if _, err := Connect(ctx(t), Options{URL: s.ClientURL(), Creds: creds("stolen", acc, alice, mallory)}); err == nil {
		t.Error("alice's JWT with another seed was let in")
	}
}
