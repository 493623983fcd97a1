package sim

import (
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ARCHITECTURE.md's table of hooks says who listens to each hook, in order; this checks that
// the wiring (lifecycle.go) registers as many listeners on each hook as the table names, and
// that the table names every hook.
func TestHooksAreAsArchitectureSays(t *testing.T) {
	w := New(Options{Seed: 1, Start: time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)})
	// Each field of engine.Hooks, by the name of its row in the table.
	rows := map[string]string{
		"NodeChanged": "node changed", "NodeReady": "node ready", "NodeDrained": "node drained",
		"NodeDeleted": "node deleted", "PoolNodesChanged": "pool's nodes changed", "PodChanged": "pod changed",
		"ClusterCreated": "cluster created", "PoolsChanged": "pools changed", "EntryLogged": "an entry logged about a cluster",
	}
	wired := map[string]int{}
	hooks := reflect.ValueOf(w.engine.Hooks)
	for i := range hooks.NumField() {
		name, f := hooks.Type().Field(i).Name, hooks.Field(i)
		row, ok := rows[name]
		if !ok {
			t.Errorf("engine.Hooks.%s has no row in ARCHITECTURE.md's table of hooks (and none in this test)", name)
			continue
		}
		switch {
		case f.Kind() == reflect.Slice:
			wired[row] = f.Len()
		case !f.IsNil():
			wired[row] = 1 // a one-listener hook
		}
	}
	doc, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(doc), "| hook | who listens, in order |")
	if !ok {
		t.Fatal("ARCHITECTURE.md has no table of hooks")
	}
	documented := map[string]int{}
	for _, line := range strings.Split(table, "\n")[2:] {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		cols := strings.Split(strings.Trim(line, "| "), " | ")
		hook, _, _ := strings.Cut(cols[0], " (")
		documented[hook] = len(strings.Split(cols[1], "; "))
	}
	for hook, n := range wired {
		if documented[hook] != n {
			t.Errorf("hook %q: lifecycle.go wires %d listeners, ARCHITECTURE.md's table names %d", hook, n, documented[hook])
		}
	}
	for hook := range documented {
		if _, ok := wired[hook]; !ok {
			t.Errorf("ARCHITECTURE.md's table names hook %q, which this test does not know", hook)
		}
	}
}
