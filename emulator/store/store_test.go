package store

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The same suite runs against every backend (fake-gcs-server style).
func backends(t *testing.T) map[string]Store {
	d, err := NewDir(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Store{"memory": NewMemory(), "dir": d}
}

func TestEmptyStoreLoadsNothing(t *testing.T) {
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			st, err := s.Load()
			if err != nil || st != nil {
				t.Fatalf("Load on empty store = %v, %v; want nil, nil", st, err)
			}
		})
	}
}

// A simulation saved mid-operation and restored continues exactly as the original does.
func TestRestoredSimulationContinuesIdentically(t *testing.T) {
	start := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			w := sim.New(sim.Options{Seed: 7, Start: start})
			if _, err := w.CreateCluster("p", "us-central1", &api.CreateClusterRequest{Cluster: &api.Cluster{
				Name: "c", NodePools: []*api.NodePool{{Name: "np", InitialNodeCount: 2}}}}); err != nil {
				t.Fatal(err)
			}
			w.RunUntil(start.Add(330 * time.Second)) // control plane up, nodes booting
			if err := s.Save(w.State()); err != nil {
				t.Fatal(err)
			}
			st, err := s.Load()
			if err != nil {
				t.Fatal(err)
			}
			r, err := sim.Restore(st)
			if err != nil {
				t.Fatal(err)
			}
			end := start.Add(20 * time.Minute)
			w.RunUntil(end)
			r.RunUntil(end)
			a, _ := w.Events(sim.EventFilter{})
			b, _ := r.Events(sim.EventFilter{})
			if len(a) != len(b) || len(a) < 10 {
				t.Fatalf("original logged %d events, restored %d", len(a), len(b))
			}
			for i := range a {
				if *a[i] != *b[i] {
					t.Fatalf("event %d differs:\noriginal %+v\nrestored %+v", i, *a[i], *b[i])
				}
			}
			c := r.Cluster("p", "us-central1", "c")
			if c == nil || c.Status != sim.ClusterRunning || len(c.Nodes) != 6 {
				t.Fatalf("restored cluster not running with 6 nodes: %+v", c)
			}
		})
	}
}

func TestDirRejectsForeignFormat(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, stateFile), []byte(`{"format": 99, "state": {}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, _ := NewDir(dir)
	if _, err := d.Load(); err == nil {
		t.Fatal("Load of format 99 succeeded; want an error naming the format")
	}
}
