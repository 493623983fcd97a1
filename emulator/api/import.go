package api

import "encoding/json"

// Importing a real GKE cluster (not part of GKE): POST
// /emulator/v1/projects/{p}/locations/{l}/clusters:import recreates a cluster from what a user
// can print from it in a minute.

// ImportClusterRequest is the body of clusters:import.
type ImportClusterRequest struct {
	// Cluster is what `gcloud container clusters describe C --format json` prints.
	Cluster json.RawMessage `json:"cluster"`
	// Objects is what `kubectl get nodes,pods,deployments,replicasets,statefulsets,daemonsets,pdb,services -A -o json`
	// prints: a List, or a JSON array of such Lists (several kubectl runs).
	Objects json.RawMessage `json:"objects"`
	// SnapshotTime is when the snapshot was taken, RFC 3339 (default: the newest time the
	// objects carry, such as the nodes' last heartbeats).
	SnapshotTime string `json:"snapshotTime,omitempty"`
}

// ImportSummary is the answer of clusters:import: what was recreated, and everything the
// emulator does not simulate as it is, each said once.
type ImportSummary struct {
	// Cluster is the imported cluster's resource name.
	Cluster string `json:"cluster"`
	// SnapshotTime is when the snapshot was taken; ImportTime the emulated time it was imported
	// at (later when the emulator's clock had passed it: the clock never goes back).
	SnapshotTime string `json:"snapshotTime"`
	ImportTime   string `json:"importTime"`
	// Imported counts the objects recreated, by kind.
	Imported []*ImportCount `json:"imported"`
	// Approximations are objects the emulator recreates differently from how GKE runs them
	// (a StatefulSet's pods recreated by the emulator's own controller, a machine type the
	// catalogue lacks learned from the nodes ...).
	Approximations []*ImportNote `json:"approximations,omitempty"`
	// NotSimulated are objects kept out of the simulation (kinds it has no model of, finished
	// pods); Secrets among them, whose data is never read.
	NotSimulated []*ImportNote `json:"notSimulated,omitempty"`
	// Warnings are inconsistencies in the input that the import worked around.
	Warnings []*ImportNote `json:"warnings,omitempty"`
}

// ImportCount is how many objects of a kind were imported.
type ImportCount struct {
	Kind  string `json:"kind"`
	Count int    `json:"count"`
}

// ImportNote says one thing about some objects: which (the first few, by kind and
// namespace/name), how many, and what.
type ImportNote struct {
	Note    string   `json:"note"`
	Objects []string `json:"objects,omitempty"`
	// Count is the number of objects the note is about (Objects lists at most 20 of them).
	Count int `json:"count,omitempty"`
}
