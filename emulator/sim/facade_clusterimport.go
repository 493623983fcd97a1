package sim

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/clusterimport"
)

// What moved out of this package keeps its name here for the server, the store and the rehearsals.

// ImportSnapshot: see clusterimport.Imports.ImportSnapshot.
func (w *World) ImportSnapshot(project string, location string, s *Snapshot) (*api.ImportSummary, error) {
	return w.clusterimport.ImportSnapshot(project, location, s)
}

// Snapshot is a real cluster read for import: see clusterimport.Snapshot.
type Snapshot = clusterimport.Snapshot

// ReadSnapshot: see clusterimport.ReadSnapshot.
func ReadSnapshot(req *api.ImportClusterRequest) (*Snapshot, error) {
	return clusterimport.ReadSnapshot(req)
}
