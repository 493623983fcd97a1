package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The Kubernetes-shaped API of a cluster, under {endpoint}/k8s/projects/P/locations/L/clusters/C,
// on the same retrying HTTP client as the GKE API (503 while the control plane comes up, 429 and
// 5xx are retried). Objects are Kubernetes JSON decoded into k8s.io/api types.

// maxConflictRetries bounds how often Update re-reads an object that changed under it.
const maxConflictRetries = 10

// StatusError is an error answer of the Kubernetes API: its metav1.Status body.
type StatusError struct {
	Code   int
	Status metav1.Status
}

// Error is the API server's message, verbatim (`namespaces "x" not found`).
func (e *StatusError) Error() string { return e.Status.Message }

// IsConflict says whether err is a 409 Conflict: the object changed since it was read (a stale
// resourceVersion). An AlreadyExists 409 is not a conflict.
func IsConflict(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == http.StatusConflict && se.Status.Reason == metav1.StatusReasonConflict
}

// Kube is a client of one cluster's Kubernetes-shaped API.
type Kube struct {
	c *Client
	// Base is the cluster's API prefix, e.g. http://127.0.0.1:8790/k8s/projects/p/locations/l/clusters/c.
	Base string
}

// Kube returns a client of a cluster's Kubernetes-shaped API.
func (c *Client) Kube(project, location, cluster string) *Kube {
	return &Kube{c: c, Base: c.Endpoint + "/k8s/" + ClusterName(project, location, cluster)}
}

// Paths of the objects the provider manages, relative to a cluster's API prefix.

// NodesPath is the cluster's nodes.
func NodesPath() string { return "/api/v1/nodes" }

// PodsPath is a namespace's pods.
func PodsPath(ns string) string { return "/api/v1/namespaces/" + url.PathEscape(ns) + "/pods" }

// DeploymentPath is a namespace's Deployments, or one of them when name is given.
func DeploymentPath(ns, name string) string {
	return objectPath("/apis/apps/v1/namespaces/"+url.PathEscape(ns)+"/deployments", name)
}

// PDBPath is a namespace's PodDisruptionBudgets, or one of them when name is given.
func PDBPath(ns, name string) string {
	return objectPath("/apis/policy/v1/namespaces/"+url.PathEscape(ns)+"/poddisruptionbudgets", name)
}

func objectPath(collection, name string) string {
	if name == "" {
		return collection
	}
	return collection + "/" + url.PathEscape(name)
}

// Get reads the object at path into out.
func (k *Kube) Get(ctx context.Context, path string, out any) error {
	return k.do(ctx, http.MethodGet, path, nil, nil, out)
}

// List reads a collection, filtered by query (labelSelector, fieldSelector), into out.
func (k *Kube) List(ctx context.Context, path string, query url.Values, out any) error {
	return k.do(ctx, http.MethodGet, path, query, nil, out)
}

// Create posts in to a collection and decodes the created object into out.
func (k *Kube) Create(ctx context.Context, path string, in, out any) error {
	return k.do(ctx, http.MethodPost, path, nil, in, out)
}

// Replace puts in (carrying the resourceVersion it was read at) and decodes the result into out.
func (k *Kube) Replace(ctx context.Context, path string, in, out any) error {
	return k.do(ctx, http.MethodPut, path, nil, in, out)
}

// Delete deletes the object at path.
func (k *Kube) Delete(ctx context.Context, path string) error {
	return k.do(ctx, http.MethodDelete, path, nil, nil, nil)
}

// Update reads the object at path, lets mutate change it and puts it back with the
// resourceVersion it was read at. When the object changed in between (409 Conflict) it reads
// it again and retries, as controllers do.
func Update[T any](ctx context.Context, k *Kube, path string, mutate func(*T)) (*T, error) {
	for attempt := 0; ; attempt++ {
		cur := new(T)
		if err := k.Get(ctx, path, cur); err != nil {
			return nil, err
		}
		mutate(cur)
		out := new(T)
		err := k.Replace(ctx, path, cur, out)
		if err == nil {
			return out, nil
		}
		if !IsConflict(err) || attempt >= maxConflictRetries {
			return nil, err
		}
	}
}

func (k *Kube) do(ctx context.Context, method, path string, query url.Values, in, out any) error {
	u := k.Base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := k.c.http.Do(req)
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return ue
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, u, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		se := &StatusError{Code: resp.StatusCode}
		if json.Unmarshal(b, &se.Status) != nil || se.Status.Message == "" {
			return fmt.Errorf("%s %s: HTTP %d: %s", method, u, resp.StatusCode, strings.TrimSpace(string(b)))
		}
		return se
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: decoding the answer: %w", method, u, err)
	}
	return nil
}
