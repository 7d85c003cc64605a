package natsconn

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// certs makes a CA and a server certificate for 127.0.0.1 signed by it;
// it returns the server's TLS config and the CA's PEM file.
func certs(t *testing.T) (*tls.Config, string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	caDER, err := x509.CreateCertificate(rand.Reader, caTpl, caTpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "nats"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644)
	cfg := &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12}
	return cfg, caFile
}

// A server that requires TLS: the client upgrades, checks the server's
// certificate against the CA it is given, and refuses a server it cannot
// verify.
func TestTLS(t *testing.T) {
	cfg, caFile := certs(t)
	s := startServer(t, func(o *server.Options) { o.TLSConfig, o.TLS = cfg, true })
	u, _ := url.Parse(s.ClientURL())
	hostport := u.Host
	c := connect(t, "tls://"+hostport, Options{TLSCA: caFile})
	if err := c.Flush(ctx(t)); err != nil {
		t.Fatal(err)
	}
	// a nats:// URL upgrades too when the server requires it
	connect(t, "nats://"+hostport, Options{TLSCA: caFile})
	if _, err := Connect(ctx(t), Options{URL: "tls://" + hostport}); err == nil || !strings.Contains(err.Error(), "TLS") {
		t.Errorf("a server signed by a CA not given (nor the system's): %v", err)
	}
	_, otherCA := certs(t)
	if _, err := Connect(ctx(t), Options{URL: "tls://" + hostport, TLSCA: otherCA}); err == nil {
		t.Error("a server signed by another CA was trusted")
	}
}
