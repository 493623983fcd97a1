// Package client talks to a gkesim emulator (or anything that speaks the GKE v1 REST API) for
// the provider: the official GKE Go client on an HTTP transport that retries, plus waiting for
// long-running operations.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hashicorp/go-retryablehttp"
	"github.com/hashicorp/terraform-plugin-log/tflog"
	container "google.golang.org/api/container/v1"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

// Config configures a Client.
type Config struct {
	// Endpoint is the emulator's base URL, e.g. http://127.0.0.1:8790.
	Endpoint string
	// RequestTimeout bounds one HTTP attempt.
	RequestTimeout time.Duration
	// MaxRetries bounds the retries of one request (429, 5xx, connection errors and GKE's
	// "please wait" conflicts).
	MaxRetries int
	// PollInterval is how often an operation is polled.
	PollInterval time.Duration
	// UserAgent names the caller.
	UserAgent string
	// AuthToken, if set, is sent as `Authorization: Bearer` on every request (an emulator
	// started with --auth-token requires it).
	AuthToken string
}

// Client is the provider's connection to the emulator.
type Client struct {
	Endpoint     string
	PollInterval time.Duration
	// GKE is the official GKE v1 client, pointed at the emulator.
	GKE  *container.Service
	http *http.Client
}

// New builds a client. It does not contact the endpoint.
func New(ctx context.Context, cfg Config) (*Client, error) {
	endpoint := strings.TrimRight(cfg.Endpoint, "/")
	if !strings.HasPrefix(endpoint, "http://") && !strings.HasPrefix(endpoint, "https://") {
		return nil, fmt.Errorf("endpoint %q must be an http:// or https:// URL", cfg.Endpoint)
	}
	rc := retryablehttp.NewClient()
	rc.RetryMax = cfg.MaxRetries
	rc.RetryWaitMin = 200 * time.Millisecond
	rc.RetryWaitMax = 5 * time.Second
	rc.CheckRetry = checkRetry
	rc.Logger = nil
	rc.HTTPClient.Timeout = cfg.RequestTimeout
	if cfg.AuthToken != "" {
		rc.HTTPClient.Transport = &bearer{token: cfg.AuthToken, next: rc.HTTPClient.Transport}
	}
	// Hand back the last response (not a retryablehttp error) so the GKE client can read its
	// error body when the retries run out.
	rc.ErrorHandler = retryablehttp.PassthroughErrorHandler
	hc := rc.StandardClient()
	hc.Transport = &reachTransport{next: hc.Transport, endpoint: endpoint}
	svc, err := container.NewService(ctx, option.WithEndpoint(endpoint+"/"), option.WithHTTPClient(hc),
		option.WithUserAgent(cfg.UserAgent))
	if err != nil {
		return nil, fmt.Errorf("create GKE client: %w", err)
	}
	return &Client{Endpoint: endpoint, PollInterval: cfg.PollInterval, GKE: svc, http: hc}, nil
}

// UnreachableFor is how long a request keeps retrying when nothing answers at the endpoint
// (connection refused, unknown host): long enough for an emulator that is starting, short
// enough that a forgotten `gkesim serve` shows at once rather than after every retry.
const UnreachableFor = 3 * time.Second

// UnreachableError is a request that got no answer from the endpoint at all.
type UnreachableError struct {
	Endpoint string
	Err      error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the gkesim emulator at %s (%s): start it with `gkesim serve` (it listens on 127.0.0.1:8790 unless given --listen), or set the provider's endpoint or GKESIM_ENDPOINT to where it listens", e.Endpoint, dialCause(e.Err))
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// dialCause is the end of a dial error ("connection refused"), without the addresses that the
// message names already.
func dialCause(err error) string {
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	var de *net.DNSError
	if errors.As(err, &de) {
		return "no such host " + de.Name
	}
	return err.Error()
}

// noAnswer says whether err means nothing answered at the endpoint (the connection could not
// be made), as opposed to an answer that was slow or broken.
func noAnswer(err error) bool {
	var oe *net.OpError
	return errors.As(err, &oe) && oe.Op == "dial"
}

// reachTransport marks when each request began, for checkRetry's budget, and turns the
// failure of a request that never reached the endpoint into an UnreachableError.
type reachTransport struct {
	next     http.RoundTripper
	endpoint string
}

type startedKey struct{}

func (t *reachTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.WithContext(context.WithValue(req.Context(), startedKey{}, time.Now()))
	resp, err := t.next.RoundTrip(req)
	if err != nil && noAnswer(err) {
		return nil, &UnreachableError{Endpoint: t.endpoint, Err: err}
	}
	return resp, err
}

// bearer adds the auth token to every request: the GKE client's and the Kubernetes ones.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	next := b.next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

// checkRetry retries what the default policy retries (connection errors, 429, 5xx) and GKE's
// conflict "Operation ... is currently ... Please wait and try again once it is done."
// Connection errors are retried for UnreachableFor only.
func checkRetry(ctx context.Context, resp *http.Response, err error) (bool, error) {
	if err != nil && noAnswer(err) {
		if started, ok := ctx.Value(startedKey{}).(time.Time); ok && time.Since(started) >= UnreachableFor {
			return false, nil
		}
	}
	if retry, perr := retryablehttp.DefaultRetryPolicy(ctx, resp, err); retry || perr != nil || resp == nil {
		return retry, perr
	}
	if resp.StatusCode != http.StatusBadRequest {
		return false, nil
	}
	body, rerr := io.ReadAll(resp.Body)
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if rerr != nil {
		return false, nil
	}
	return IsPleaseWait(body), nil
}

// IsPleaseWait says whether an error body is GKE's conflicting-operation error.
func IsPleaseWait(body []byte) bool {
	var eb struct {
		Error struct {
			Status  string `json:"status"`
			Message string `json:"message"`
			Errors  []struct {
				Reason string `json:"reason"`
			} `json:"errors"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &eb) != nil {
		return false
	}
	reason := eb.Error.Status == "FAILED_PRECONDITION"
	for _, e := range eb.Error.Errors {
		reason = reason || e.Reason == "failedPrecondition"
	}
	return reason && strings.Contains(eb.Error.Message, "Please wait and try again once it is done")
}

// IsNotFound says whether err is an HTTP 404 from the GKE or the Kubernetes API.
func IsNotFound(err error) bool {
	var ge *googleapi.Error
	var se *StatusError
	return (errors.As(err, &ge) && ge.Code == http.StatusNotFound) || (errors.As(err, &se) && se.Code == http.StatusNotFound)
}

// Message is the API's own message of err (shown to users verbatim), or err's text.
func Message(err error) string {
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return ue.Error()
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) && ge.Message != "" {
		return ge.Message
	}
	var se *StatusError
	if errors.As(err, &se) {
		return se.Status.Message
	}
	return err.Error()
}

// ClusterName is projects/P/locations/L/clusters/C.
func ClusterName(project, location, cluster string) string {
	return "projects/" + project + "/locations/" + location + "/clusters/" + cluster
}

// NodePoolName is projects/P/locations/L/clusters/C/nodePools/N.
func NodePoolName(project, location, cluster, pool string) string {
	return ClusterName(project, location, cluster) + "/nodePools/" + pool
}

// KubeObjectName is projects/P/locations/L/clusters/C/namespaces/NS/{collection}/NAME, the id
// of a Kubernetes object in a cluster (collection as in its API path: deployments,
// poddisruptionbudgets).
func KubeObjectName(project, location, cluster, namespace, collection, name string) string {
	return ClusterName(project, location, cluster) + "/namespaces/" + namespace + "/" + collection + "/" + name
}

// Wait polls op until it is DONE and returns its error, if any, with GKE's message. It logs
// progress as the operation's detail changes.
func (c *Client) Wait(ctx context.Context, project, location string, op *container.Operation) error {
	return c.WaitUntil(ctx, project, location, op, nil)
}

// WaitUntil is Wait that also returns, without error, as soon as until (when not nil) reports
// true; it asks after each poll of a running operation.
func (c *Client) WaitUntil(ctx context.Context, project, location string, op *container.Operation, until func(context.Context) (bool, error)) error {
	name := "projects/" + project + "/locations/" + location + "/operations/" + op.Name
	last := ""
	for {
		if op.Status == "DONE" {
			if op.StatusMessage != "" {
				return fmt.Errorf("%s operation %s failed: %s", op.OperationType, op.Name, op.StatusMessage)
			}
			if op.Error != nil && op.Error.Code != 0 {
				return fmt.Errorf("%s operation %s failed: %s", op.OperationType, op.Name, op.Error.Message)
			}
			tflog.Debug(ctx, "operation done", map[string]any{"operation": op.Name, "type": op.OperationType})
			return nil
		}
		if msg := progressLine(op); msg != last {
			tflog.Info(ctx, msg, map[string]any{"operation": op.Name})
			last = msg
		}
		if until != nil {
			if stop, err := until(ctx); err != nil || stop {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s operation %s (%s): %w", op.OperationType, op.Name, progressLine(op), ctx.Err())
		case <-time.After(c.PollInterval):
		}
		next, err := c.GKE.Projects.Locations.Operations.Get(name).Context(ctx).Do()
		if err != nil {
			return fmt.Errorf("poll operation %s: %s", op.Name, Message(err))
		}
		op = next
	}
}

// Await waits for the operation a call returned; callErr is the call's own error. Failures
// carry the API's message.
func (c *Client) Await(ctx context.Context, project, location string, op *container.Operation, callErr error) error {
	if callErr != nil {
		return errors.New(Message(callErr))
	}
	return c.Wait(ctx, project, location, op)
}

// progressLine describes where an operation is, for logs.
func progressLine(op *container.Operation) string {
	s := fmt.Sprintf("%s %s", op.OperationType, op.Status)
	if op.Detail != "" {
		s += ": " + op.Detail
	}
	if op.Progress != nil {
		var parts []string
		for _, m := range op.Progress.Metrics {
			switch {
			case m.StringValue != "":
				parts = append(parts, m.Name+"="+m.StringValue)
			default:
				parts = append(parts, fmt.Sprintf("%s=%d", m.Name, m.IntValue))
			}
		}
		if len(parts) > 0 {
			s += " [" + strings.Join(parts, " ") + "]"
		}
	}
	return s
}

// GetJSON fetches an absolute URL on the emulator (e.g. an instance group URL) into out.
func (c *Client) GetJSON(ctx context.Context, url string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(body)))
	}
	return json.Unmarshal(body, out)
}
