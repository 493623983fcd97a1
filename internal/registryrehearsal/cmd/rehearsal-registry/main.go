// rehearsal-registry serves provider releases through the provider registry protocol over
// HTTPS on loopback, for make release-rehearsal (scripts/release-rehearsal.sh), and checks that
// a goreleaser build names every platform it built in its checksums.
//
//	rehearsal-registry serve --namespace NS=DIR... --ca-file F --addr-file F [--listen 127.0.0.1:0] [--max-lifetime 1h]
//	rehearsal-registry check-platforms --dist DIR [--build provider]
//
// serve makes a CA and a certificate for localhost for the run, writes the CA's PEM to
// --ca-file (give it to the clients as SSL_CERT_FILE) and then the registry's host name,
// localhost:PORT, to --addr-file. A provider's source is then localhost:PORT/NS/TYPE. It
// stops on SIGINT or SIGTERM, or by itself after --max-lifetime.
package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/internal/registryrehearsal"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: rehearsal-registry serve|check-platforms [flags] (-h for the flags)")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:])
	case "check-platforms":
		err = checkPlatforms(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q: use serve or check-platforms", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rehearsal-registry:", err)
		os.Exit(1)
	}
}

type namespaces map[string]string

func (n namespaces) String() string { return fmt.Sprint(map[string]string(n)) }

func (n namespaces) Set(v string) error {
	ns, dir, ok := strings.Cut(v, "=")
	if !ok || ns == "" || dir == "" {
		return fmt.Errorf("%q: want NAMESPACE=DIRECTORY", v)
	}
	n[ns] = dir
	return nil
}

func serve(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	ns := namespaces{}
	fs.Var(ns, "namespace", "NAMESPACE=DIRECTORY: serve the releases in DIRECTORY as NAMESPACE/TYPE (repeat for more)")
	listen := fs.String("listen", "127.0.0.1:0", "loopback address to listen on")
	caFile := fs.String("ca-file", "", "where to write the PEM of the run's CA")
	addrFile := fs.String("addr-file", "", "where to write the registry's host name (localhost:PORT) once it listens")
	lifetime := fs.Duration("max-lifetime", time.Hour, "stop by itself after this long")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if len(ns) == 0 || *caFile == "" || *addrFile == "" {
		return errors.New("serve needs --namespace, --ca-file and --addr-file")
	}
	host, _, err := net.SplitHostPort(*listen)
	if err != nil {
		return fmt.Errorf("--listen %s: %w", *listen, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("--listen %s: the rehearsal registry listens on a loopback address only, such as 127.0.0.1:0", *listen)
	}
	reg, err := registryrehearsal.New(ns, log.Printf)
	if err != nil {
		return err
	}
	tlsConfig, caPEM, err := registryrehearsal.LoopbackTLS()
	if err != nil {
		return err
	}
	if err := os.WriteFile(*caFile, caPEM, 0o644); err != nil {
		return fmt.Errorf("--ca-file: %w", err)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", *listen, err)
	}
	addr := fmt.Sprintf("localhost:%d", ln.Addr().(*net.TCPAddr).Port)
	srv := &http.Server{Handler: reg, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 5 * time.Minute, TLSConfig: tlsConfig}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(tls.NewListener(ln, tlsConfig)) }()
	if err := os.WriteFile(*addrFile, []byte(addr+"\n"), 0o644); err != nil {
		return fmt.Errorf("--addr-file: %w", err)
	}
	log.Printf("serving the provider registry protocol on https://%s (namespaces %v)", addr, ns)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	case <-time.After(*lifetime):
		log.Printf("stopping after --max-lifetime %s", *lifetime)
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

func checkPlatforms(args []string) error {
	fs := flag.NewFlagSet("check-platforms", flag.ContinueOnError)
	dist := fs.String("dist", "dist", "goreleaser's dist directory")
	build := fs.String("build", "provider", "the provider's build id in .goreleaser.yml")
	if err := fs.Parse(args); err != nil {
		return err
	}
	platforms, err := registryrehearsal.CheckPlatforms(*dist, *build)
	if err != nil {
		return err
	}
	fmt.Printf("the checksums name the provider's zip for each of the %d platforms goreleaser builds: %s\n", len(platforms), strings.Join(platforms, " "))
	return nil
}
