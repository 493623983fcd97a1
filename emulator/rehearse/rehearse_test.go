package rehearse

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The fixtures (emulator/testdata/snapshot) are the cluster shop as `gcloud container clusters
// describe --format json` prints it and its objects as `kubectl get nodes,pods,deployments,
// replicasets,statefulsets,daemonsets,pdb,services -A -o json` prints them: three pools on 1.33
// under a 1.34 control plane; default-pool (six e2-standard-4 nodes over three zones, surge 1/0)
// runs web (PDB maxUnavailable 1), payments (PDB maxUnavailable 0, 90-minute grace), an Argo
// Rollout, a Job pod annotated safe-to-evict "false" and ssd-cache, which selects a label put
// on one node by hand; spot-pool has two Spot nodes; db-pool (blue-green, 1-node batches with
// 5-minute soaks, 30-minute pool soak) runs the db StatefulSet (PDB minAvailable 2). The
// maintenance window is daily from 03:00 UTC; the snapshot was taken at 02:39:30 UTC.

func readFixture(t testing.TB, edit func(cluster string) string) *sim.Snapshot {
	t.Helper()
	cj, err := os.ReadFile("../testdata/snapshot/shop-cluster.json")
	if err != nil {
		t.Fatal(err)
	}
	oj, err := os.ReadFile("../testdata/snapshot/shop-objects.json")
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		cj = []byte(edit(string(cj)))
	}
	s, err := sim.ReadSnapshot(&api.ImportClusterRequest{Cluster: cj, Objects: oj})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func shopSnapshot(t testing.TB) *sim.Snapshot { return readFixture(t, nil) }

func mustRun(t *testing.T, s *sim.Snapshot, o Options) *Report {
	t.Helper()
	r, err := Run(s, o)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + text.String())
	return r
}

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func wantDuration(t *testing.T, what string, gotSeconds float64, want string) {
	t.Helper()
	if got := dur(gotSeconds).String(); got != want {
		t.Errorf("%s took %s, want %s", what, got, want)
	}
}

// The pool's own surge 1/0 (R-SURGE-1/2): zones one at a time, one node at a time; every node
// holding a payments pod is held the full hour by its maxUnavailable-0 budget, then the pod is
// deleted, its 90-minute grace cut to nothing (R-SURGE-3); ssd-cache loses the only node with
// its label and stays Pending.
func TestRehearseSurgeWithThePoolsSettings(t *testing.T) {
	r := mustRun(t, shopSnapshot(t), Options{Pool: "default-pool", Seed: 1})
	if !r.Finished || r.Nodes != 6 || r.To != "1.34.1-gke.1829001" || len(r.From) != 1 || r.From[0] != "1.33.5-gke.1308000" {
		t.Fatalf("finished %v, %d nodes, %v -> %s", r.Finished, r.Nodes, r.From, r.To)
	}
	if !r.Started.Equal(at("2026-03-10T02:40:31Z")) || !r.Done.Equal(at("2026-03-10T05:54:54Z")) {
		t.Errorf("ran %s to %s", r.Started, r.Done)
	}
	wantDuration(t, "the upgrade", r.DurationSeconds, "3h14m23s")
	if len(r.Zones) != 3 {
		t.Fatalf("zones %+v", r.Zones)
	}
	for i, want := range []struct{ zone, from, took string }{
		{"europe-west1-b", "2026-03-10T02:40:31Z", "1h4m41s"},
		{"europe-west1-c", "2026-03-10T03:45:12Z", "1h5m13s"},
		{"europe-west1-d", "2026-03-10T04:50:25Z", "1h4m29s"},
	} {
		z := r.Zones[i]
		if z.Zone != want.zone || !z.Start.Equal(at(want.from)) || z.Nodes != 2 {
			t.Errorf("zone %d: %+v, want %s from %s with 2 nodes", i, z, want.zone, want.from)
		}
		wantDuration(t, z.Zone, z.DurationSeconds, want.took)
	}
	if len(r.Drains) != 6 || r.HeldDrains() != 3 {
		t.Errorf("%d drains, %d held; want 6 and 3", len(r.Drains), r.HeldDrains())
	}
	for _, d := range r.Drains {
		if len(d.Holds) == 0 {
			wantDuration(t, "an unheld drain of "+d.Node, d.DurationSeconds, "35s")
			continue
		}
		h := d.Holds[0]
		if len(d.Holds) != 1 || h.PDB != "default/payments" || h.Ended != ForcedPDBTimeout || d.Forced != 1 {
			t.Errorf("drain of %s: holds %+v, %d forced", d.Node, d.Holds, d.Forced)
		}
		wantDuration(t, "the hold on "+d.Node, h.DurationSeconds, "1h0m0s")
		wantDuration(t, "the held drain of "+d.Node, d.DurationSeconds, "1h0m5s")
	}
	if len(r.PDBs) != 1 || r.PDBs[0].PDB != "default/payments" || r.PDBs[0].Drains != 3 || r.PDBs[0].ForcedAtTimeout != 3 {
		t.Errorf("budgets %+v", r.PDBs)
	}
	if r.ForcedBy(ForcedPDBTimeout) != 3 || len(r.Forced) != 3 {
		t.Errorf("forced %+v", r.Forced)
	}
	for _, f := range r.Forced {
		if !strings.HasPrefix(f.Pod, "default/payments-") || f.Grace != "0s" || f.OwnGrace != "1h30m0s" || f.PDB != "default/payments" {
			t.Errorf("forced pod %+v", f)
		}
	}
	if len(r.LeftPending) != 1 || !strings.HasPrefix(r.LeftPending[0].Pod, "default/ssd-cache-") ||
		!strings.Contains(r.LeftPending[0].Reason, "didn't match Pod's node affinity/selector") || r.PeakPending != 1 {
		t.Errorf("left Pending %+v, peak %d", r.LeftPending, r.PeakPending)
	}
	if v := r.VMs; v.Before != 6 || v.Peak != 7 || v.PeakExtra != 1 || !v.PeakAt.Equal(at("2026-03-10T02:40:31Z")) ||
		v.ExtraHours < 3.2 || v.ExtraHours > 3.25 || v.ExtraCostUSD != 0.43 {
		t.Errorf("VMs %+v", v)
	}
	if a, d := r.LBTotals(); a != 6 || d != 6 || len(r.LoadBalancers) != 1 || r.LoadBalancers[0].Service != "default/web" {
		t.Errorf("load balancers %+v", r.LoadBalancers)
	}
	if len(r.Pauses) != 0 {
		t.Errorf("pauses %+v", r.Pauses)
	}
}

// Blue-green in batches of 25% (R-BG-3: a quarter of 6 nodes rounded down, one node): green
// first (6 extra VMs), drained batch by batch by eviction, soaked an hour; what the payments
// budget holds waits for the blue pool's deletion, which deletes it with its grace capped at 60
// minutes (R-BG-5).
func TestRehearseBlueGreenCapsGraceAtSixtyMinutes(t *testing.T) {
	s, err := ParseStrategy("blue-green:25%")
	if err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, shopSnapshot(t), Options{Pool: "default-pool", Seed: 1, Strategy: s})
	wantDuration(t, "the upgrade", r.DurationSeconds, "2h3m31s")
	var phases []string
	for _, p := range r.Phases {
		phases = append(phases, p.Phase+" "+dur(p.DurationSeconds).String())
	}
	if got, want := strings.Join(phases, ", "), "CREATING_GREEN_POOL 1m27s, CORDONING_BLUE_POOL 30s, DRAINING_BLUE_POOL 40s, NODE_POOL_SOAKING 1h0m0s, DELETING_BLUE_POOL 1h0m54s"; got != want {
		t.Errorf("phases %s\nwant %s", got, want)
	}
	if len(r.Batches) != 6 {
		t.Errorf("%d batches, want 6 of one node", len(r.Batches))
	}
	for _, b := range r.Batches {
		if len(b.Nodes) != 1 || b.SoakSeconds != 0 {
			t.Errorf("batch %+v", b)
		}
	}
	if r.ForcedBy(ForcedGraceCapped) != 2 || r.ForcedBy(ForcedPDBTimeout) != 0 {
		t.Errorf("forced %+v", r.Forced)
	}
	for _, f := range r.Forced {
		if f.Why == ForcedGraceCapped && (f.Grace != "1h0m0s" || f.OwnGrace != "1h30m0s" || f.PDB != "default/payments") {
			t.Errorf("grace-capped pod %+v", f)
		}
	}
	if v := r.VMs; v.Before != 6 || v.Peak != 12 || v.PeakExtra != 6 {
		t.Errorf("VMs %+v", v)
	}
	held := 0
	for _, d := range r.Drains {
		for _, h := range d.Holds {
			if h.PDB == "default/payments" {
				held++
				if h.Ended != ForcedGraceCapped || h.DurationSeconds < 3600 {
					t.Errorf("payments hold %+v", h)
				}
			}
		}
	}
	if held != 2 {
		t.Errorf("payments held %d drains, want 2", held)
	}
}

// The db pool's own blue-green settings: one node a batch, five-minute batch soaks, a
// 30-minute pool soak; the StatefulSet's pods are recreated on green under their names, and its
// budget (minAvailable 2 of 3) never holds a drain.
func TestRehearseBlueGreenPoolWithAStatefulSet(t *testing.T) {
	r := mustRun(t, shopSnapshot(t), Options{Pool: "db-pool", Seed: 1, KeepLog: true})
	wantDuration(t, "the upgrade", r.DurationSeconds, "47m57s")
	if len(r.Batches) != 3 || r.HeldDrains() != 0 || len(r.Forced) != 0 || len(r.Pending) != 0 {
		t.Errorf("%d batches, %d held drains, forced %v, pending %v", len(r.Batches), r.HeldDrains(), r.Forced, r.Pending)
	}
	for i, b := range r.Batches {
		if b.SoakSeconds != 300 || len(b.Nodes) != 1 {
			t.Errorf("batch %d: %+v", i+1, b)
		}
	}
	if p := r.Phases[3]; p.Phase != "NODE_POOL_SOAKING" || p.DurationSeconds != 1800 {
		t.Errorf("pool soak %+v", p)
	}
	if v := r.VMs; v.Before != 3 || v.Peak != 6 {
		t.Errorf("VMs %+v", v)
	}
	// db-0, db-1, db-2 each rescheduled on a green node under its own name.
	scheduled := map[string]bool{}
	for _, e := range r.Log {
		if m := regexp.MustCompile(`^pod default/(db-\d) scheduled to gke-shop-db-pool-`).FindStringSubmatch(e.Message); m != nil {
			scheduled[m[1]] = true
		}
	}
	if len(scheduled) != 3 {
		t.Errorf("db pods rescheduled: %v", scheduled)
	}
}

// As GKE's auto-upgrade, the same surge respects the maintenance window (R-MW-3): moved to a
// daily window from 01:00 to 05:00 UTC, it runs from the snapshot, the node mid-upgrade at 05:00
// finishes (its drain held an hour by payments), the next one waits for the next window.
func TestRehearseAutomaticPausesAtTheWindow(t *testing.T) {
	s := readFixture(t, func(c string) string {
		return strings.Replace(c, `"startTime": "03:00"`, `"startTime": "01:00"`, 1)
	})
	r := mustRun(t, s, Options{Pool: "default-pool", Seed: 1, Automatic: true})
	if len(r.Pauses) != 1 {
		t.Fatalf("pauses %+v", r.Pauses)
	}
	p := r.Pauses[0]
	if p.BeforeStart || p.Done != 5 || !p.From.Equal(at("2026-03-10T05:52:21Z")) || !p.Until.Equal(at("2026-03-11T01:00:00Z")) ||
		!strings.Contains(p.Why, "outside the maintenance window") {
		t.Errorf("pause %+v", p)
	}
	if !r.Finished || !r.Done.Equal(at("2026-03-11T01:02:33Z")) {
		t.Errorf("done %v at %s", r.Finished, r.Done)
	}
	// The fixture's own window opens at 03:00: the automatic upgrade waits for it.
	r = mustRun(t, shopSnapshot(t), Options{Pool: "default-pool", Seed: 1, Automatic: true})
	if len(r.Pauses) != 1 || !r.Pauses[0].BeforeStart || !r.Pauses[0].Until.Equal(at("2026-03-10T03:00:00Z")) || !r.Started.Equal(at("2026-03-10T03:00:00Z")) {
		t.Errorf("pauses %+v, started %s", r.Pauses, r.Started)
	}
	// A manual upgrade does not wait.
	r = mustRun(t, shopSnapshot(t), Options{Pool: "default-pool", Seed: 1})
	if len(r.Pauses) != 0 || !r.Started.Equal(at("2026-03-10T02:40:31Z")) {
		t.Errorf("manual upgrade: pauses %+v, started %s", r.Pauses, r.Started)
	}
}

// Compare runs each strategy in a world of its own: the same numbers as one run each, side by
// side.
func TestRehearseCompare(t *testing.T) {
	var ss []Strategy
	for _, name := range []string{"pool", "surge:3/0", "surge:0/2", "blue-green:25%"} {
		s, err := ParseStrategy(name)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
	}
	snap := shopSnapshot(t)
	rs, err := Compare(snap, Options{Pool: "default-pool", Seed: 1}, ss)
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range ss {
		one := mustRun(t, snap, Options{Pool: "default-pool", Seed: 1, Strategy: s})
		a, _ := json.Marshal(one)
		b, _ := json.Marshal(rs[i])
		if !bytes.Equal(a, b) {
			t.Errorf("strategy %s: the comparison's report differs from a run of its own", s.Name)
		}
	}
	var out bytes.Buffer
	if err := WriteComparison(&out, rs); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"pool: surge 1/0", "surge 3/0", "surge 0/2", "blue-green 25% batches",
		"3h14m23s", "2h7m6s", "2h6m34s", "2h3m31s"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the comparison lacks %q", want)
		}
	}
	if rs[1].VMs.PeakExtra != 2 || rs[2].VMs.PeakExtra != 0 || rs[2].HeldDrains() != 5 {
		t.Errorf("surge 3/0 peak extra %d; surge 0/2 peak extra %d, held drains %d", rs[1].VMs.PeakExtra, rs[2].VMs.PeakExtra, rs[2].HeldDrains())
	}
}

// The same snapshot, options and seed give the same rehearsal.
func TestRehearseIsDeterministic(t *testing.T) {
	var prev []byte
	for range 2 {
		r, err := Run(shopSnapshot(t), Options{Pool: "default-pool", Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r)
		if prev != nil && !bytes.Equal(prev, b) {
			t.Fatal("two rehearsals with the same seed differ")
		}
		prev = b
	}
}

// The HTML report is one file: no script, no stylesheet or image to fetch.
func TestRehearseHTMLIsSelfContained(t *testing.T) {
	s, _ := ParseStrategy("surge:3/0")
	snap := shopSnapshot(t)
	a := mustRun(t, snap, Options{Pool: "default-pool", Seed: 1})
	b := mustRun(t, snap, Options{Pool: "default-pool", Seed: 1, Strategy: s})
	var out bytes.Buffer
	if err := WriteHTML(&out, a, b); err != nil {
		t.Fatal(err)
	}
	h := out.String()
	for _, want := range []string{"<svg", "Strategies side by side", "default/payments", "gke-shop-default-pool-3f9a6c2e-q8vz", "ssd-cache", "held by a PDB"} {
		if !strings.Contains(h, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "src=", "<link", "url("} {
		if strings.Contains(h, bad) {
			t.Errorf("the page has %q: it must need no other file", bad)
		}
	}
	if n := strings.Count(h, "https://") + strings.Count(h, "http://") - strings.Count(h, `xmlns="http://www.w3.org/2000/svg"`); n != 0 {
		t.Errorf("the page refers to %d addresses", n)
	}
}

func TestParseStrategy(t *testing.T) {
	for _, tc := range []struct {
		in, name string
		check    func(us *api.UpgradeSettings) bool
		err      string
	}{
		{in: "pool", name: "pool", check: func(us *api.UpgradeSettings) bool { return us == nil }},
		{in: "surge", name: "surge 1/0", check: func(us *api.UpgradeSettings) bool { return us.MaxSurge == 1 && us.MaxUnavailable == 0 }},
		{in: "surge:3/1", name: "surge 3/1", check: func(us *api.UpgradeSettings) bool { return us.MaxSurge == 3 && us.MaxUnavailable == 1 }},
		{in: "blue-green:25%,soak=5m,pool-soak=30m", name: "blue-green 25% batches, batch soak 5m0s, pool soak 30m0s", check: func(us *api.UpgradeSettings) bool {
			sp := us.BlueGreenSettings.StandardRolloutPolicy
			return us.Strategy == api.StrategyBlueGreen && *sp.BatchPercentage == 0.25 && sp.BatchSoakDuration == "300s" && us.BlueGreenSettings.NodePoolSoakDuration == "1800s"
		}},
		{in: "blue-green:2", name: "blue-green 2-node batches", check: func(us *api.UpgradeSettings) bool {
			return *us.BlueGreenSettings.StandardRolloutPolicy.BatchNodeCount == 2
		}},
		{in: "autoscaled-blue-green:wait=1h", name: "autoscaled blue-green, wait 1h0m0s", check: func(us *api.UpgradeSettings) bool {
			return us.BlueGreenSettings.AutoscaledRolloutPolicy.WaitForDrainDuration == "3600s"
		}},
		{in: "surge:0/0", err: "not both 0"},
		{in: "surge:a/b", err: "two numbers"},
		{in: "blue-green:150%", err: "0% to 100%"},
		{in: "blue-green:25%,bake=1h", err: `unknown parameter "bake=1h"`},
		{in: "rolling", err: `unknown kind "rolling"`},
	} {
		s, err := ParseStrategy(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one saying %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case s.Name != tc.name || !tc.check(s.Settings):
			t.Errorf("%s: %q %+v", tc.in, s.Name, s.Settings)
		}
	}
}

// An upgrade that cannot start says why and what to do.
func TestRehearseRefusals(t *testing.T) {
	snap := shopSnapshot(t)
	if _, err := Run(snap, Options{Pool: "gpu-pool"}); err == nil || !strings.Contains(err.Error(), "its pools: default-pool, spot-pool, db-pool") {
		t.Errorf("unknown pool: %v", err)
	}
	if _, err := Run(snap, Options{Pool: "default-pool", Version: "1.35"}); err == nil || !strings.Contains(err.Error(), "leave the version out") {
		t.Errorf("a version newer than the control plane: %v", err)
	}
	s, _ := ParseStrategy("autoscaled-blue-green")
	if _, err := Run(snap, Options{Pool: "spot-pool", Strategy: s}); err == nil || !strings.Contains(err.Error(), "autoscaled blue-green upgrades need") {
		t.Errorf("autoscaled blue-green on a pool without autoscaling: %v", err)
	}
}
