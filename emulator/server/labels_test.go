package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/servertest"
)

// clusters.setResourceLabels checks the labelFingerprint the client read, as GKE does: the
// current one sets the labels (and the fingerprint changes with them); a stale one, or none,
// gets GKE's 400 FAILED_PRECONDITION naming the expected fingerprint, and changes nothing.
func TestSetResourceLabelsChecksTheFingerprint(t *testing.T) {
	e := newEnv(t).withBase()
	var cl api.Cluster
	e.OK("GET", base, nil, &cl)
	first := cl.LabelFingerprint
	if len(first) != 8 {
		t.Fatalf("cluster without labels: labelFingerprint %q, want 8 hex digits", first)
	}
	e.Mutate("POST", base+":setResourceLabels", &api.SetLabelsRequest{ResourceLabels: map[string]string{"team": "a"}, LabelFingerprint: first})
	e.OK("GET", base, nil, &cl)
	if cl.ResourceLabels["team"] != "a" || cl.LabelFingerprint == first || len(cl.LabelFingerprint) != 8 {
		t.Fatalf("after setResourceLabels: labels %v, fingerprint %q (was %q); want team=a and a new fingerprint", cl.ResourceLabels, cl.LabelFingerprint, first)
	}
	current := cl.LabelFingerprint
	for _, stale := range []string{first, ""} {
		code, body := e.Call("POST", base+":setResourceLabels", &api.SetLabelsRequest{ResourceLabels: map[string]string{"team": "b"}, LabelFingerprint: stale})
		servertest.WantError(t, code, body, http.StatusBadRequest, "FAILED_PRECONDITION", "failedPrecondition",
			"Labels could not be set due to fingerprint mismatch; try again with the proper fingerprint: incorrect fingerprint supplied was \""+stale+"\", the expected one is \""+current+"\".")
	}
	e.OK("GET", base, nil, &cl)
	if cl.ResourceLabels["team"] != "a" || cl.LabelFingerprint != current {
		t.Fatalf("after refused updates: labels %v, fingerprint %q; want them unchanged", cl.ResourceLabels, cl.LabelFingerprint)
	}
	// Removing every label works the same way.
	e.Mutate("POST", base+":setResourceLabels", &api.SetLabelsRequest{ResourceLabels: map[string]string{}, LabelFingerprint: current})
	cl = api.Cluster{}
	e.OK("GET", base, nil, &cl)
	if len(cl.ResourceLabels) != 0 || cl.LabelFingerprint != first {
		t.Fatalf("after removing the labels: %v, fingerprint %q; want none and the fingerprint of no labels %q", cl.ResourceLabels, cl.LabelFingerprint, first)
	}
}

// initialClusterVersion is filled on every cluster with the version it was created at, as GKE
// does: requested by alias, or not requested at all.
func TestInitialClusterVersionIsFilled(t *testing.T) {
	e := newEnv(t).withBase()
	e.Mutate("POST", clusters, `{"cluster": {"name": "alias", "initialClusterVersion": "1.36", "initialNodeCount": 1}}`)
	for _, name := range []string{"base", "alias"} {
		var cl api.Cluster
		e.OK("GET", clusters+"/"+name, nil, &cl)
		if cl.InitialClusterVersion == "" || cl.InitialClusterVersion != cl.CurrentMasterVersion || !strings.Contains(cl.InitialClusterVersion, "-gke.") {
			t.Fatalf("cluster %s: initialClusterVersion %q, currentMasterVersion %q; want the full version it was created at", name, cl.InitialClusterVersion, cl.CurrentMasterVersion)
		}
	}
}
