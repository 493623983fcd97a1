package conformance

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// cli runs a real command-line client (gcloud, kubectl) with an environment of its own and a
// time limit per command.
type cli struct {
	t       *testing.T
	name    string
	path    string
	env     []string
	timeout time.Duration
}

// environWithout is the test's environment without the variables that start with prefixes:
// the user's own settings of a client must not leak in.
func environWithout(prefixes ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			env = append(env, kv)
		}
	}
	return env
}

// run runs one command and returns its stdout and stderr.
func (c *cli) run(args ...string) (stdout, stderr string, err error) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), c.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Env = c.env
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	c.t.Logf("%s %s (%s)", c.name, strings.Join(args, " "), time.Since(start).Round(10*time.Millisecond))
	if ctx.Err() != nil {
		c.t.Fatalf("%s %s: no answer within %s\nstderr:\n%s", c.name, strings.Join(args, " "), c.timeout, errOut.String())
	}
	return out.String(), errOut.String(), err
}

// ok runs a command that must succeed and returns its stdout.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	out, errOut, err := c.run(args...)
	if err != nil {
		c.t.Fatalf("%s %s: %v\nstdout:\n%s\nstderr:\n%s", c.name, strings.Join(args, " "), err, out, errOut)
	}
	return out
}
