package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// client is a small JSON client of a running emulator.
type client struct {
	base  string
	token string
	http  *http.Client
}

func (g *globals) client() *client {
	return &client{base: strings.TrimRight(g.endpoint, "/"), token: g.token, http: &http.Client{Timeout: 5 * time.Minute}}
}

// authorize adds the auth token, if any, to a request to the emulator.
func (c *client) authorize(req *http.Request) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
}

// call sends a request and decodes the JSON answer into out (if not nil). Google and
// Kubernetes error bodies become errors carrying their message.
func (c *client) call(method, path string, query url.Values, body, out any) error {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return c.unreachable(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var eb api.ErrorBody
		if json.Unmarshal(b, &eb) == nil && eb.Error != nil {
			return fmt.Errorf("(%s) %s", eb.Error.Status, eb.Error.Message)
		}
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

func (c *client) unreachable(err error) error { return &unreachableError{base: c.base, err: err} }

// unreachableError is a request that got no HTTP answer at all.
type unreachableError struct {
	base string
	err  error
}

func (e *unreachableError) Error() string {
	if errors.Is(e.err, syscall.ECONNREFUSED) {
		return fmt.Sprintf("cannot reach the emulator at %s (connection refused): start it with `gkesim serve`, or set --endpoint or GKESIM_ENDPOINT to where it listens", e.base)
	}
	return fmt.Sprintf("cannot reach the emulator at %s: %v", e.base, e.err)
}

func (e *unreachableError) Unwrap() error { return e.err }

// print writes v as YAML (default) or JSON.
func (g *globals) print(v any) error {
	if g.format == "json" {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(g.out, string(b))
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	y, err := yaml.JSONToYAML(b)
	if err != nil {
		return err
	}
	_, err = g.out.Write(y)
	return err
}
