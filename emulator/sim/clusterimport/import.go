package clusterimport

import (
	"encoding/binary"
	"fmt"
	"maps"
	"net"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/gke"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Importing a real cluster: a snapshot (import_read.go) becomes a cluster of the simulation
// with its node pools (upgrade settings, autoscaling, management, maintenance policy), its nodes
// (names, zones, machine types, versions, labels, taints, allocatable) and its workloads (pods
// with their requests, owners, priorities, annotations, tolerations, selectors and nodes;
// PodDisruptionBudgets; Services and their load balancers), at the emulated time it is imported
// at. What gkesim does not simulate as GKE runs it is said in the summary, never dropped
// silently.
//
// The import is one command whose effect is a function of the snapshot and the emulated time:
// the model is built whole first, as a restored state is (derived indexes are built from it,
// with no side effect), and only a complete cluster joins the world; then the controllers take
// it over as they take over a new one. Anything that does not fit refuses the whole import.

// importer builds one cluster from a snapshot.
type importer struct {
	w *Imports
	s *Snapshot
	c *model.Cluster
	// notes by section and text, objects in the order noted.
	notes map[string]map[string]*api.ImportNote
	order map[string][]string
	// counts of imported objects by kind.
	counts map[string]int
	// failed are nodes that were NotReady, failed once the cluster has joined.
	failed []string
	// starting are pods bound to a node whose containers had not started.
	starting []*model.Pod
}

// Sections of the summary.
const (
	noteApprox   = "approximation"
	noteNotSim   = "notSimulated"
	noteWarning  = "warning"
	maxNoteNames = 20
)

func (im *importer) note(section, text, object string) {
	if im.notes[section] == nil {
		im.notes[section] = map[string]*api.ImportNote{}
	}
	n := im.notes[section][text]
	if n == nil {
		n = &api.ImportNote{Note: text}
		im.notes[section][text] = n
		im.order[section] = append(im.order[section], text)
	}
	n.Count++
	if object != "" && len(n.Objects) < maxNoteNames {
		n.Objects = append(n.Objects, object)
	}
}

func (im *importer) section(name string) []*api.ImportNote {
	var out []*api.ImportNote
	for _, text := range im.order[name] {
		n := im.notes[name][text]
		if len(n.Objects) == 0 {
			n.Count = 0
		}
		out = append(out, n)
	}
	return out
}

// ImportSnapshot recreates the snapshot's cluster in project and location (its own location
// when empty) at the current emulated time, and says what it did.
func (w *Imports) ImportSnapshot(project, location string, s *Snapshot) (*api.ImportSummary, error) {
	if project == "" {
		project = s.project
	}
	if project == "" {
		return nil, model.InvalidArgument("Required parameter \"project\" is missing: the cluster JSON's selfLink names none; give the project to import into.")
	}
	if location == "" {
		location = s.location
	}
	loc, err := gke.ParseLocationArg(location)
	if err != nil {
		return nil, err
	}
	if err := model.ValidateResourceName("cluster.name", s.cluster.Name); err != nil {
		return nil, err
	}
	if w.core.Cluster(project, location, s.cluster.Name) != nil {
		return nil, model.AlreadyExists("projects/%s/locations/%s/clusters/%s: delete it first to import it again.", project, location, s.cluster.Name)
	}
	im := &importer{w: w, s: s, notes: map[string]map[string]*api.ImportNote{}, order: map[string][]string{}, counts: map[string]int{}}
	for _, warn := range s.warnings {
		im.note(noteWarning, warn.Note, "")
	}
	if err := im.buildCluster(project, location, loc); err != nil {
		return nil, err
	}
	if err := im.buildPoolsAndNodes(loc); err != nil {
		return nil, err
	}
	if err := im.buildWorkloads(); err != nil {
		return nil, err
	}
	if err := (&model.State{Clusters: map[string]*model.Cluster{im.c.Key(): im.c}, Operations: map[string]*model.Operation{}}).ValidateCluster(im.c); err != nil {
		return nil, model.InvalidArgument("The snapshot cannot be imported (nothing was imported): %v.", err)
	}
	im.c.ShareRepeats() // the snapshot's pods each came with their own copies
	im.join()
	return im.summary(), nil
}

// buildCluster builds the cluster itself.
func (im *importer) buildCluster(project, location string, loc catalog.Location) error {
	in := im.s.cluster
	master, ok := catalog.ParseVersion(in.CurrentMasterVersion)
	if !ok {
		return model.InvalidField("cluster.currentMasterVersion", fmt.Sprintf("%q", in.CurrentMasterVersion), "A GKE version is 1.X.Y-gke.N")
	}
	zones, err := gke.ClusterZones(loc, in.Locations, "cluster.locations")
	if err != nil {
		return err
	}
	channel := api.ChannelUnspecified
	if in.ReleaseChannel != nil && in.ReleaseChannel.Channel != "" {
		if err := model.ValidateEnum("cluster.releaseChannel.channel", in.ReleaseChannel.Channel, append(catalog.Channels, api.ChannelUnspecified)...); err != nil {
			return err
		}
		channel = in.ReleaseChannel.Channel
	}
	now := im.w.st.Now
	c := &model.Cluster{
		Project: project, Location: location, Name: in.Name, ID: in.Id, Description: in.Description, Locations: zones,
		MasterVersion: master.String(), InitialVersion: in.InitialClusterVersion, ReleaseChannel: channel,
		Status: model.ClusterRunning, CreateTime: now, Network: "default", Subnetwork: "default",
		ResourceLabels: maps.Clone(in.ResourceLabels), AutoscalingProfile: api.ProfileBalanced, InitialNodeCount: in.InitialNodeCount,
		ServicesIPv4CIDR: gke.DefaultServicesCIDR, ControlPlaneReady: true, Extra: in.Extra.Clone(),
		Imported: &model.ImportRecord{SnapshotTime: im.s.time, Time: now},
	}
	c.InitMaps()
	c.MachineShapes, c.DaemonSets = map[string]*model.MachineShape{}, map[string]*model.DaemonSet{}
	if c.ID == "" {
		c.ID = strings.ReplaceAll(model.UIDOf(project, location, in.Name), "-", "")
	}
	if c.InitialVersion == "" {
		c.InitialVersion = c.MasterVersion
	}
	if t, err := time.Parse(time.RFC3339, in.CreateTime); err == nil && !t.After(now) {
		c.CreateTime = t.UTC()
	}
	if in.Network != "" {
		c.Network = model.LastSegment(in.Network)
	}
	if in.Subnetwork != "" {
		c.Subnetwork = model.LastSegment(in.Subnetwork)
	}
	if in.NetworkConfig != nil {
		c.L4ILBSubsetting = in.NetworkConfig.EnableL4IlbSubsetting
		c.NetworkExtra = in.NetworkConfig.Extra.Clone()
	}
	if in.Autoscaling != nil {
		if p := in.Autoscaling.AutoscalingProfile; p != "" && p != api.ProfileUnspecified {
			if err := model.ValidateEnum("cluster.autoscaling.autoscalingProfile", p, api.ProfileOptimizeUtilization, api.ProfileBalanced); err != nil {
				return err
			}
			c.AutoscalingProfile = p
		}
		c.AutoscalingExtra = in.Autoscaling.Extra.Clone()
	}
	c.ClusterIPv4CIDR, c.NodeIPBase = im.w.gke.ClusterRanges(c, in.ClusterIpv4Cidr)
	if in.ServicesIpv4Cidr != "" {
		if _, _, err := net.ParseCIDR(in.ServicesIpv4Cidr); err != nil {
			return model.InvalidField("cluster.servicesIpv4Cidr", fmt.Sprintf("%q", in.ServicesIpv4Cidr), "A CIDR block, e.g. \"34.118.224.0/20\"")
		}
		c.ServicesIPv4CIDR = in.ServicesIpv4Cidr
	}
	if _, _, err := net.ParseCIDR(c.ClusterIPv4CIDR); err != nil {
		return model.InvalidField("cluster.clusterIpv4Cidr", fmt.Sprintf("%q", in.ClusterIpv4Cidr), "A CIDR block, e.g. \"10.64.0.0/14\"")
	}
	c.PolicyVersion = model.UIDOf(c.ID, "policy")[:16]
	im.c = c
	return im.buildMaintenancePolicy()
}

// buildMaintenancePolicy keeps the cluster's window and exclusions. An exclusion that GKE
// accepted and gkesim's rules refuse (its version table dates the end of support differently)
// is left out, and the summary says so with the rule.
func (im *importer) buildMaintenancePolicy() error {
	in := im.s.cluster.MaintenancePolicy
	if in == nil || in.Window == nil {
		return nil
	}
	c := im.c
	if in.ResourceVersion != "" {
		c.PolicyVersion = in.ResourceVersion
	}
	p, err := im.w.maintenance.BuildMaintenancePolicy(c, in, "cluster.maintenancePolicy")
	if err == nil {
		c.MaintenancePolicy = nonEmptyPolicy(p)
		return nil
	}
	// Without exclusions, then with each one alone, to name the ones refused.
	win := *in.Window
	win.MaintenanceExclusions = nil
	base, err2 := im.w.maintenance.BuildMaintenancePolicy(c, &api.MaintenancePolicy{Window: &win}, "cluster.maintenancePolicy")
	if err2 != nil {
		return err
	}
	kept := map[string]*api.TimeWindow{}
	for _, name := range model.SortedKeys(in.Window.MaintenanceExclusions) {
		one := win
		one.MaintenanceExclusions = map[string]*api.TimeWindow{name: in.Window.MaintenanceExclusions[name]}
		if _, err := im.w.maintenance.BuildMaintenancePolicy(c, &api.MaintenancePolicy{Window: &one}, "cluster.maintenancePolicy"); err != nil {
			im.note(noteApprox, "maintenance exclusion left out: gkesim's rules refuse it: "+err.Error(), "exclusion "+name)
			continue
		}
		kept[name] = in.Window.MaintenanceExclusions[name]
	}
	win.MaintenanceExclusions = kept
	if p, err := im.w.maintenance.BuildMaintenancePolicy(c, &api.MaintenancePolicy{Window: &win}, "cluster.maintenancePolicy"); err == nil {
		base = p
	}
	c.MaintenancePolicy = nonEmptyPolicy(base)
	return nil
}

func nonEmptyPolicy(p *model.MaintenancePolicy) *model.MaintenancePolicy {
	if p.Empty() {
		return nil
	}
	return p
}

// allocationCounters start the cluster's node and pod address counters after the addresses
// the snapshot's nodes and pods have, so that new ones do not repeat them.
func (im *importer) allocationCounters() {
	c := im.c
	var ips []uint32
	for _, n := range c.Nodes {
		if ip := net.ParseIP(n.InternalIP).To4(); ip != nil {
			ips = append(ips, binary.BigEndian.Uint32(ip))
		}
	}
	if len(ips) > 0 {
		sort.Slice(ips, func(i, j int) bool { return ips[i] < ips[j] })
		c.NodeIPBase = ips[0] &^ 0xffff
		c.NextNodeIP = ips[len(ips)-1] - c.NodeIPBase
	}
	if _, cidr, err := net.ParseCIDR(c.ClusterIPv4CIDR); err == nil {
		base := binary.BigEndian.Uint32(cidr.IP.To4())
		for _, p := range im.s.pods {
			if ip := net.ParseIP(p.Status.PodIP).To4(); ip != nil && cidr.Contains(ip) {
				c.NextPodIP = max(c.NextPodIP, binary.BigEndian.Uint32(ip)-base)
			}
		}
	}
}

// join adds the built cluster to the world and lets the controllers take it over: the derived
// indexes are built from it (as after a restore), automatic maintenance and the autoscaler
// start, pods not yet started start, pending pods are scheduled, every workload's controller
// takes a pass, load balancers sync their backends, and nodes that were NotReady fail.
func (im *importer) join() {
	w, c := im.w, im.c
	w.st.Clusters[c.Key()] = c
	w.core.PodIndex(c)
	w.loadbalancers.ServiceIndex(c)
	for _, p := range c.Pools {
		for _, g := range p.Groups {
			w.core.GroupIndex(c, g)
		}
	}
	for _, k := range model.SortedKeys(c.PDBs) {
		w.core.PDBCounts(c, c.PDBs[k])
	}
	// The controllers report the imported objects' statuses when this change is published.
	for _, k := range model.SortedKeys(c.Deployments) {
		w.core.MarkDeployment(c, c.Deployments[k])
	}
	for _, k := range model.SortedKeys(c.PDBs) {
		w.core.MarkPDB(c, c.PDBs[k])
	}
	w.core.MarkDaemonSets(c)
	w.engine.Record("ClusterImported", c, "", "", "", "cluster %s imported from a snapshot taken at %s: %s", c.Name,
		im.s.time.Format(time.RFC3339), im.describeCounts())
	w.engine.EmitClusterCreated(c)
	w.engine.EmitPoolsChanged(c)
	for _, p := range im.starting {
		w.core.StartContainers(c, p)
	}
	w.core.QueueSchedule(c)
	for _, key := range model.SortedKeys(c.Deployments) {
		w.workloads.QueueSync(c, key)
	}
	for _, key := range model.SortedKeys(c.Services) {
		s := c.Services[key]
		switch {
		case s.LB != nil:
			w.loadbalancers.SyncLB(c, s)
		case s.Spec.Type == corev1.ServiceTypeLoadBalancer:
			w.loadbalancers.ReconcileLB(c, s, nil) // not provisioned in the snapshot: GKE goes on building it
		}
	}
	for _, name := range im.failed {
		_, _ = w.autoupgrade.FailNode(c.Project, c.Location, c.Name, name)
	}
	w.core.Publish() // the imported objects with their statuses, as the controllers report them
}

var importedKinds = []string{"NodePool", "Node", "Namespace", "Pod", "Deployment", "StatefulSet", "DaemonSet", "Job", "ReplicaSet",
	"PodDisruptionBudget", "Service", "LoadBalancer"}

func (im *importer) describeCounts() string {
	var parts []string
	for _, k := range importedKinds {
		if n := im.counts[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	for _, k := range model.SortedKeys(im.counts) {
		if !slices.Contains(importedKinds, k) {
			parts = append(parts, fmt.Sprintf("%d %s", im.counts[k], k))
		}
	}
	return strings.Join(parts, ", ")
}

func (im *importer) summary() *api.ImportSummary {
	out := &api.ImportSummary{Cluster: im.c.Key(), SnapshotTime: im.s.time.Format(time.RFC3339), ImportTime: im.w.st.Now.Format(time.RFC3339)}
	for _, k := range importedKinds {
		if n := im.counts[k]; n > 0 {
			out.Imported = append(out.Imported, &api.ImportCount{Kind: k, Count: n})
		}
	}
	for _, k := range model.SortedKeys(im.counts) {
		if !slices.Contains(importedKinds, k) {
			out.Imported = append(out.Imported, &api.ImportCount{Kind: k, Count: im.counts[k]})
		}
	}
	if im.w.st.Now.After(im.s.time) {
		im.note(noteWarning, fmt.Sprintf("the emulator's clock (%s) had passed the snapshot's time (%s) and never goes back: the cluster is imported at %s; start gkesim serve --start-time %s to rehearse from the snapshot's time",
			im.w.st.Now.Format(time.RFC3339), im.s.time.Format(time.RFC3339), im.w.st.Now.Format(time.RFC3339), im.s.time.Format(time.RFC3339)), "")
	}
	out.Approximations = im.section(noteApprox)
	out.NotSimulated = im.section(noteNotSim)
	out.Warnings = im.section(noteWarning)
	return out
}
