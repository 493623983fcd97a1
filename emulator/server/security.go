package server

import (
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/k8s"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Who may talk to the emulator. The emulator has no users of its own; what it must keep out
// are web pages open in a browser on the same machine and, when it listens beyond loopback,
// strangers.
//
//   - Cross-site requests are refused: a page on another site may not send the emulator a
//     request that changes anything (net/http's CrossOriginProtection: Sec-Fetch-Site, else
//     Origin against Host), and a request body must be declared JSON: the types a page may send
//     across sites without a CORS preflight (none, text/plain, forms) are refused, and the
//     preflight is never granted (the emulator sends no CORS headers).
//     A web console served by the emulator itself (under /ui/) is same-origin and unaffected.
//   - Without a token, requests must name the emulator by an IP address, localhost or the host
//     of the advertise URL: a page whose own host name was made to resolve to 127.0.0.1 (DNS
//     rebinding) is same-origin to the browser but names its own host.
//   - With a token (--auth-token, GKESIM_AUTH_TOKEN) every route requires
//     `Authorization: Bearer TOKEN`, but GET and HEAD of /healthz and /readyz, which probes
//     call without secrets and which tell nothing but the emulator's health. Any other method
//     on them passes every check, as any other route does (then gets its 405).
//   - Links the emulator hands out (selfLink, a cluster's endpoint) are built from the address
//     the request arrived on, or the advertise URL, never from the Host header a client chose.

// Options configure a Server.
type Options struct {
	Logger *slog.Logger
	// AdvertiseURL is the base URL clients reach the emulator at when it runs behind a proxy
	// ("https://gkesim.example.com"); links are built from it. Empty: from the address each
	// request arrived on.
	AdvertiseURL string
	// AuthToken, when set, is the bearer token every route but /healthz requires.
	AuthToken string
	// ClusterCACertificate is the PEM certificate clients trust when the emulator serves TLS;
	// clusters give it as masterAuth.clusterCaCertificate, as GKE gives its clusters' CA.
	ClusterCACertificate []byte
	// MaxWatchesPerCluster bounds the watches a cluster serves at once (0:
	// DefaultMaxWatchesPerCluster).
	MaxWatchesPerCluster int
	// MaxEventFollowers bounds the event log's followers (0: DefaultMaxEventFollowers).
	MaxEventFollowers int
	// Storage, when set, is the store: changes are refused while it cannot write, and
	// /readyz says so.
	Storage Storage
}

// DefaultMaxWatchesPerCluster bounds the watches a cluster serves at once when
// Options.MaxWatchesPerCluster is 0.
const DefaultMaxWatchesPerCluster = k8s.DefaultMaxWatchesPerCluster

// probe says whether r is a health probe (GET or HEAD of /healthz or /readyz): probes come
// without secrets, from anywhere, and tell nothing but the emulator's health.
func probe(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && (r.URL.Path == "/healthz" || r.URL.Path == "/readyz")
}

// guard refuses cross-site requests and requests naming a host the emulator does not answer
// to, and records the base URL of the request's links.
func (s *Server) guard(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		httpio.SetBaseURL(c, s.baseOf(r))
		if probe(r) || sim.InRunner(r.Context()) { // a replayed request passed when first served
			return next(c)
		}
		if err := s.refusal(r); err != nil {
			return err
		}
		return next(c)
	}
}

// refusal is why the guard refuses r, nil when it passes (probes and replayed requests aside,
// which the guard lets through unchecked).
func (s *Server) refusal(r *http.Request) error {
	if s.token == "" && !s.knownHost(r.Host) {
		return forbidden(r, "Host %q is not an address of this emulator: without --auth-token it answers only to IP addresses, localhost "+
			"and the host of --advertise-url (a defence against DNS rebinding). Reach it by its IP address, or start it with --advertise-url "+
			"naming this host, or with --auth-token.", r.Host)
	}
	if err := s.crossOrigin.Check(r); err != nil {
		return forbidden(r, "Cross-site request refused: a web page on %s may not send requests to the emulator (Sec-Fetch-Site %q). "+
			"Call it from a program, or from a page the emulator serves.", originOf(r), r.Header.Get("Sec-Fetch-Site"))
	}
	if unsafeMethod(r.Method) && hasBody(r) && simpleContentType(r.Header.Get(echo.HeaderContentType)) {
		return &sim.Error{HTTPCode: http.StatusUnsupportedMediaType, Status: "INVALID_ARGUMENT", Reason: "badRequest", KubeReason: "UnsupportedMediaType",
			Message: fmt.Sprintf("Unsupported Content-Type %q: request bodies must be JSON (Content-Type: application/json; "+
				"with curl, add -H 'Content-Type: application/json').", r.Header.Get(echo.HeaderContentType))}
	}
	return nil
}

// authenticate requires the bearer token, when one is configured.
func (s *Server) authenticate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if probe(r) || sim.InRunner(r.Context()) || s.authorized(r) {
			return next(c)
		}
		c.Response().Header().Set("WWW-Authenticate", `Bearer realm="gkesim"`)
		msg := "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential. " +
			"gkesim was started with an auth token: send it as `Authorization: Bearer TOKEN` (see the README, \"Authentication\")."
		if isK8sPath(r.URL.Path) {
			msg = "Unauthorized"
		}
		return &sim.Error{HTTPCode: http.StatusUnauthorized, Status: "UNAUTHENTICATED", Reason: "authError", KubeReason: "Unauthorized", Message: msg}
	}
}

// authorized says whether r may pass authentication: no token is configured, or r bears it.
func (s *Server) authorized(r *http.Request) bool {
	if s.token == "" {
		return true
	}
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	return strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), []byte(s.token)) == 1
}

func forbidden(r *http.Request, format string, args ...any) error {
	return &sim.Error{HTTPCode: http.StatusForbidden, Status: "PERMISSION_DENIED", Reason: "forbidden", KubeReason: "Forbidden",
		Message: fmt.Sprintf(format, args...)}
}

func originOf(r *http.Request) string {
	if o := r.Header.Get("Origin"); o != "" {
		return o
	}
	return "another site"
}

// unsafeMethod says whether a request may change something (GET, HEAD and OPTIONS do not, and a
// page cannot give them a body).
func unsafeMethod(m string) bool {
	return m != http.MethodGet && m != http.MethodHead && m != http.MethodOptions
}

// hasBody says whether a request carries a body (a length, or a chunked one).
func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody
}

// simpleContentType says whether a body's type is one a web page may send to another site
// without a CORS preflight (none, text/plain, a form), so that a JSON body a page smuggles in
// as text is refused; any other type needs the preflight the emulator never grants, and the
// handlers say what they accept (JSON, and the Kubernetes patch types).
func simpleContentType(contentType string) bool {
	if strings.TrimSpace(contentType) == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err != nil || mt == "text/plain" || mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data"
}

// knownHost says whether a Host header names this emulator: an IP address, localhost, or the
// advertise URL's host.
func (s *Server) knownHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	switch {
	case isIP(host), strings.EqualFold(host, "localhost"), strings.HasSuffix(strings.ToLower(host), ".localhost"):
		return true
	}
	return s.advertise != nil && strings.EqualFold(host, s.advertise.Hostname())
}

// isIP says whether host is an IP address literal without a zone (what net.ParseIP takes),
// allocating nothing.
func isIP(host string) bool {
	a, err := netip.ParseAddr(host)
	return err == nil && a.Zone() == ""
}

// baseOf is the scheme and address of a request's links: the advertise URL, else the local
// address the request arrived on.
func (s *Server) baseOf(r *http.Request) string {
	if s.advertise != nil {
		return s.advertiseBase
	}
	// The same for every request of a connection: worked out on its first one.
	cs, _ := r.Context().Value(connKey{}).(*connState)
	if cs != nil {
		if b := cs.base.Load(); b != nil {
			return *b
		}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	base := scheme + "://localhost" // served without a listener (ServeHTTP in a unit test)
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		base = scheme + "://" + a.String()
	}
	if cs != nil {
		b := base
		cs.base.Store(&b)
	}
	return base
}

// renderCluster renders a cluster for a request: links on the request's base URL and, when
// the emulator serves TLS, the CA kubectl must trust (masterAuth.clusterCaCertificate, base64
// PEM, beside what setMasterAuth stored). kubectl sends a bearer token only over TLS.
func (s *Server) renderCluster(w *sim.World, cl *sim.Cluster, c echo.Context) *api.Cluster {
	out := w.RenderCluster(cl, links(c), k8sEndpoint(c, cl))
	if len(s.caPEM) == 0 {
		return out
	}
	auth := map[string]json.RawMessage{}
	if raw, ok := out.Extra["masterAuth"]; ok {
		_ = json.Unmarshal(raw, &auth)
	}
	auth["clusterCaCertificate"], _ = json.Marshal(base64.StdEncoding.EncodeToString(s.caPEM))
	b, _ := json.Marshal(auth)
	if out.Extra == nil {
		out.Extra = api.Extra{}
	}
	out.Extra["masterAuth"] = b
	return out
}

// ParseAdvertiseURL checks an --advertise-url: an absolute http(s) URL without query.
func ParseAdvertiseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("advertise URL %q: give the emulator's base URL as clients reach it, e.g. https://gkesim.example.com or http://10.0.0.5:8790", s)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	return u, nil
}
