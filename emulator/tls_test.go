package emulator_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator"
	"github.com/gkesim/terraform-provider-gkesim/emulator/emulatortest"
)

// An emulator with a token speaks TLS and plain HTTP on one port: the plain clients keep their
// http:// address, kubectl (which sends a token only over TLS) gets https with the CA the
// clusters give in masterAuth.clusterCaCertificate. A connection that sends nothing holds up
// no one.
func TestTokenEmulatorServesTLSOnTheSamePort(t *testing.T) {
	_, url := emulatortest.Start(t, emulator.Options{AuthToken: "t", Start: time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)})
	addr := strings.TrimPrefix(url, "http://")
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()

	get := func(c *http.Client, u, path string) []byte {
		t.Helper()
		req, _ := http.NewRequest("GET", u+path, nil)
		req.Header.Set("Authorization", "Bearer t")
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("GET %s%s: %v", u, path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s%s: HTTP %d %s", u, path, resp.StatusCode, b)
		}
		return b
	}
	req, _ := http.NewRequest("POST", url+"/v1/projects/p/locations/us-central1-a/clusters", strings.NewReader(`{"cluster": {"name": "c", "initialNodeCount": 1}}`))
	req.Header.Set("Authorization", "Bearer t")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("create over plain HTTP: %v %v", err, resp)
	}
	var cl struct {
		MasterAuth struct{ ClusterCaCertificate string } `json:"masterAuth"`
	}
	if err := json.Unmarshal(get(http.DefaultClient, url, "/v1/projects/p/locations/us-central1-a/clusters/c"), &cl); err != nil {
		t.Fatal(err)
	}
	ca, err := base64.StdEncoding.DecodeString(cl.MasterAuth.ClusterCaCertificate)
	pool := x509.NewCertPool()
	if err != nil || !pool.AppendCertsFromPEM(ca) {
		t.Fatalf("masterAuth.clusterCaCertificate: %q", cl.MasterAuth.ClusterCaCertificate)
	}
	tlsClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	for _, host := range []string{addr, strings.Replace(addr, "127.0.0.1", "localhost", 1)} {
		if b := get(tlsClient, "https://"+host, "/emulator/v1/clock"); !strings.Contains(string(b), "timeScale") {
			t.Errorf("clock over TLS at %s: %s", host, b)
		}
	}
}
