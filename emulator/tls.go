package emulator

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/url"
	"sync"
	"time"
)

// TLS for kubectl. kubectl sends a bearer token only over TLS (client-go drops credentials for
// http:// servers), so an emulator that requires a token also speaks TLS, on the same port:
// a connection that opens with a TLS handshake gets TLS, any other plain HTTP, so that the
// clients configured with http:// (the provider, gcloud, the Go client, the gkesim CLI) are
// unaffected. The certificate is self-signed, made at start for the emulator's addresses
// (localhost, the machine's IP addresses, the advertise URL's host); clusters give it as
// masterAuth.clusterCaCertificate, as GKE gives its clusters' CA, and `gkesim container
// clusters get-credentials` writes it into the kubeconfig with an https:// server.

// kubectlTLS is the TLS configuration of an emulator started with opts and the PEM of its CA,
// or nil when it needs none: without a token, or behind a TLS-terminating proxy (an https
// advertise URL, whose certificate clients already trust).
func kubectlTLS(opts Options) (*tls.Config, []byte, error) {
	if opts.AuthToken == "" {
		return nil, nil, nil
	}
	hosts := []string{"localhost"}
	if opts.AdvertiseURL != "" {
		u, err := url.Parse(opts.AdvertiseURL)
		if err != nil {
			return nil, nil, err
		}
		if u.Scheme == "https" {
			return nil, nil, nil
		}
		hosts = append(hosts, u.Hostname())
	}
	ips := []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				ips = append(ips, n.IP)
			}
		}
	}
	cert, caPEM, err := selfSigned(hosts, ips)
	if err != nil {
		return nil, nil, fmt.Errorf("make the emulator's TLS certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, caPEM, nil
}

// selfSigned makes a self-signed certificate (its own CA) for the host names and addresses.
func selfSigned(hosts []string, ips []net.IP) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "gkesim", Organization: []string{"gkesim emulator"}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.AddDate(10, 0, 0),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
		DNSNames: hosts, IPAddresses: ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}

// withTLS serves TLS and plain HTTP on one listener: each connection's first byte says which
// (0x16 opens a TLS handshake). Connections are sorted on their own goroutines, so that a
// client that sends nothing holds up no one; one that sends nothing for sniffTimeout is closed.
func withTLS(ln net.Listener, cfg *tls.Config) net.Listener {
	m := &sniffListener{Listener: ln, cfg: cfg, conns: make(chan net.Conn), closed: make(chan struct{})}
	go m.accept()
	return m
}

const sniffTimeout = 10 * time.Second

type sniffListener struct {
	net.Listener
	cfg    *tls.Config
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	err    error
}

func (m *sniffListener) accept() {
	for {
		c, err := m.Listener.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				m.err = err
				m.once.Do(func() { close(m.closed) })
				return
			}
			time.Sleep(10 * time.Millisecond) // a passing error (too many open files): try again
			continue
		}
		go m.sniff(c)
	}
}

func (m *sniffListener) sniff(c net.Conn) {
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout))
	br := bufio.NewReader(c)
	first, err := br.Peek(1)
	_ = c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	var out net.Conn = &peekedConn{Conn: c, r: br}
	if first[0] == 0x16 {
		out = tls.Server(out, m.cfg)
	}
	select {
	case m.conns <- out:
	case <-m.closed:
		out.Close()
	}
}

func (m *sniffListener) Accept() (net.Conn, error) {
	select {
	case c := <-m.conns:
		return c, nil
	case <-m.closed:
		return nil, m.err
	}
}

// peekedConn reads first what was peeked.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (p *peekedConn) Read(b []byte) (int, error) { return p.r.Read(b) }

// NetConn is the connection underneath, as tls.Conn says (server.ConnContext looks through
// both to bound a stream's socket buffer).
func (p *peekedConn) NetConn() net.Conn { return p.Conn }
