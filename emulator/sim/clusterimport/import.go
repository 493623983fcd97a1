package clusterimport

import (
	"encoding/binary"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/gke"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
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
		ResourceLabels: cloneMap(in.ResourceLabels), AutoscalingProfile: api.ProfileBalanced, InitialNodeCount: in.InitialNodeCount,
		ServicesIPv4CIDR: gke.DefaultServicesCIDR, ControlPlaneReady: true, Extra: in.Extra.Clone(),
		Imported: &model.ImportRecord{SnapshotTime: im.s.time, Time: now},
	}
	c.InitMaps()
	c.MachineShapes, c.DaemonSets = map[string]*model.MachineShape{}, map[string]*model.DaemonSet{}
	if c.ID == "" {
		c.ID = strings.ReplaceAll(model.UidOf(project, location, in.Name), "-", "")
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
	c.PolicyVersion = model.UidOf(c.ID, "policy")[:16]
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

// poolNodes are the snapshot's nodes of one pool.
type poolNodes struct {
	pool  *model.NodePool
	nodes []*corev1.Node
}

// buildPoolsAndNodes builds the node pools, their instance groups and their nodes, and learns
// the machine types from the nodes.
func (im *importer) buildPoolsAndNodes(loc catalog.Location) error {
	c, s := im.c, im.s
	im.learnMachineShapes()
	byPool := map[string]*poolNodes{}
	for i, in := range s.cluster.NodePools {
		field := fmt.Sprintf("cluster.nodePools[%d]", i)
		if in == nil {
			return model.InvalidArgument("Invalid value for field %q: null.", field)
		}
		if c.Pool(in.Name) != nil {
			return model.InvalidField(field+".name", fmt.Sprintf("%q", in.Name), "Node pool names must be unique within a cluster")
		}
		p, err := im.buildPool(in, field, loc)
		if err != nil {
			return err
		}
		c.Pools = append(c.Pools, p)
		byPool[p.Name] = &poolNodes{pool: p}
	}
	for _, n := range s.nodes {
		pn := byPool[n.Labels[labelNodePool]]
		pn.nodes = append(pn.nodes, n)
	}
	for _, p := range c.Pools {
		if err := im.buildNodes(byPool[p.Name]); err != nil {
			return err
		}
	}
	im.allocationCounters()
	return nil
}

// buildPool builds a node pool from its cluster JSON.
func (im *importer) buildPool(in *api.NodePool, field string, loc catalog.Location) (*model.NodePool, error) {
	c := im.c
	if err := model.ValidateResourceName(field+".name", in.Name); err != nil {
		return nil, err
	}
	cfg := in.Config
	if cfg == nil {
		cfg = &api.NodeConfig{}
	}
	spec := model.NodeSpec{MachineType: catalog.DefaultMachineType, DiskType: catalog.DefaultDiskType, DiskSizeGb: catalog.DefaultDiskSizeGb,
		ImageType: catalog.DefaultImageType, Spot: cfg.Spot, Preemptible: cfg.Preemptible}
	if cfg.MachineType != "" {
		spec.MachineType = cfg.MachineType
	}
	if cfg.DiskType != "" {
		spec.DiskType = cfg.DiskType
	}
	if cfg.DiskSizeGb != 0 {
		spec.DiskSizeGb = cfg.DiskSizeGb
	}
	if cfg.ImageType != "" {
		spec.ImageType = strings.ToUpper(cfg.ImageType)
	}
	v, ok := catalog.ParseVersion(in.Version)
	if !ok {
		return nil, model.InvalidField(field+".version", fmt.Sprintf("%q", in.Version), "A GKE version is 1.X.Y-gke.N")
	}
	spec.Version = v.String()
	if !c.KnowsMachineType(spec.MachineType) {
		if err := im.estimateMachineShape(spec.MachineType, field+".config.machineType"); err != nil {
			return nil, err
		}
	}
	if err := gke.ValidateSpec(c, spec, gke.MemberOf(field+".config")); err != nil {
		return nil, err
	}
	taints, err := gke.ConvertTaints(cfg.Taints, field+".config.taints")
	if err != nil {
		return nil, err
	}
	zones := c.Locations
	if len(in.Locations) > 0 {
		if zones, err = gke.ClusterZones(catalog.Location{Name: loc.Region, Region: loc.Region}, in.Locations, field+".locations"); err != nil {
			return nil, err
		}
	}
	as, err := gke.NormalizeAutoscaling(in.Autoscaling, field+".autoscaling", spec.Spot)
	if err != nil {
		return nil, err
	}
	maxPods := int64(catalog.DefaultMaxPods)
	if in.MaxPodsConstraint != nil && in.MaxPodsConstraint.MaxPodsPerNode != 0 {
		maxPods = int64(in.MaxPodsConstraint.MaxPodsPerNode)
	}
	p := &model.NodePool{
		Name: in.Name, Spec: spec, Labels: cloneMap(cfg.Labels), Taints: taints, ConfigExtra: cfg.Extra.Clone(),
		InitialNodeCount: in.InitialNodeCount, Locations: append([]string(nil), zones...), Status: model.PoolRunning,
		Autoscaling: as, MaxPodsPerNode: maxPods, PodIPv4CIDRSize: in.PodIpv4CidrSize,
		FlexStart: cfg.FlexStart, QueuedProvisioning: in.QueuedProvisioning != nil && in.QueuedProvisioning.Enabled,
		Extra: in.Extra.Clone(), CreateTime: c.CreateTime, Etag: in.Etag,
	}
	p.ShortLived = p.FlexStart || p.QueuedProvisioning
	if p.PodIPv4CIDRSize == 0 {
		p.PodIPv4CIDRSize = gke.PodCIDRSize(maxPods)
	}
	if p.Etag == "" {
		p.Etag = model.UidOf(c.ID, "pool", p.Name)[:16]
	}
	if m := in.Management; m != nil {
		p.AutoUpgrade, p.AutoRepair = m.AutoUpgrade, m.AutoRepair
	}
	us := in.UpgradeSettings
	if us != nil {
		clone := us.Clone() // the snapshot is never changed
		us = &clone
	}
	if p.UpgradeSettings, err = model.NormalizeUpgradeSettings(us, field+".upgradeSettings", model.PoolUpgradeContext(c, p)); err != nil {
		return nil, err
	}
	if in.Status != "" && in.Status != model.PoolRunning {
		im.note(noteWarning, "node pool was not RUNNING in the snapshot (an operation in progress); it is imported as it was, running, and that operation does not go on", "NodePool "+p.Name+" ("+in.Status+")")
	}
	if in.UpdateInfo != nil && in.UpdateInfo.BlueGreenInfo != nil {
		im.note(noteWarning, "node pool was in a blue-green upgrade in the snapshot; its nodes are imported as they were, in one set of instance groups, and the upgrade does not go on", "NodePool "+p.Name)
	}
	// The instance groups GKE made, from their URLs (.../zones/ZONE/instanceGroupManagers/NAME).
	for _, u := range in.InstanceGroupUrls {
		zone, name := igFromURL(u)
		if zone == "" || name == "" || p.GroupNamed(name) != nil {
			continue
		}
		p.Groups = append(p.Groups, &model.InstanceGroup{Name: name, Zone: zone, Hash: igHash(name)})
	}
	im.counts["NodePool"]++
	return p, nil
}

// igFromURL reads the zone and name of an instance group (manager) URL.
func igFromURL(u string) (zone, name string) {
	_, rest, ok := strings.Cut(u, "/zones/")
	if !ok {
		return "", ""
	}
	zone, rest, _ = strings.Cut(rest, "/")
	return zone, model.LastSegment(rest)
}

// igHash is the hash of a GKE instance group name (gke-C-P-HASH-grp).
func igHash(name string) string {
	name = strings.TrimSuffix(name, "-grp")
	return model.LastSegment(strings.ReplaceAll(name, "-", "/"))
}

// nodeHash is the hash of a GKE node name (gke-C-P-HASH-XXXX): its group's.
func nodeHash(name string) string {
	parts := strings.Split(name, "-")
	if len(parts) < 3 {
		return ""
	}
	return parts[len(parts)-2]
}

func indexOf(list []string, v string) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// shapeOf is what a node reports of its machine.
func shapeOf(n *corev1.Node) model.MachineShape {
	return model.MachineShape{
		CapacityMilliCPU: n.Status.Capacity.Cpu().MilliValue(), CapacityMemoryBytes: n.Status.Capacity.Memory().Value(),
		Allocatable: model.Resources{MilliCPU: n.Status.Allocatable.Cpu().MilliValue(), MemoryBytes: n.Status.Allocatable.Memory().Value()},
	}
}

// learnMachineShapes takes each machine type's capacity and allocatable from its nodes: what
// most of them reported (nodes that differ keep theirs as their own).
func (im *importer) learnMachineShapes() {
	votes := map[string]map[model.MachineShape]int{}
	for _, n := range im.s.nodes {
		mt := nodeMachineType(n)
		if mt == "" {
			continue
		}
		sh := shapeOf(n)
		if sh.Allocatable.MilliCPU <= 0 || sh.Allocatable.MemoryBytes <= 0 {
			continue
		}
		if votes[mt] == nil {
			votes[mt] = map[model.MachineShape]int{}
		}
		votes[mt][sh]++
	}
	for _, mt := range model.SortedKeys(votes) {
		var best model.MachineShape
		bestN := 0
		for sh, n := range votes[mt] {
			if n > bestN || (n == bestN && shapeLess(sh, best)) {
				best, bestN = sh, n
			}
		}
		if cat, ok := catalog.LookupMachineType(mt); ok {
			best.PricePerHour = cat.PricePerHour
		} else {
			best.PricePerHour = estimatedPrice(best.CapacityMilliCPU, best.CapacityMemoryBytes)
			im.note(noteApprox, "machine type not in gkesim's catalogue: its nodes' capacity and allocatable are used as they reported them, its price estimated at general-purpose (n2) rates", "machine type "+mt)
		}
		b := best
		im.c.MachineShapes[mt] = &b
	}
}

func shapeLess(a, b model.MachineShape) bool {
	if a.Allocatable.MilliCPU != b.Allocatable.MilliCPU {
		return a.Allocatable.MilliCPU < b.Allocatable.MilliCPU
	}
	if a.Allocatable.MemoryBytes != b.Allocatable.MemoryBytes {
		return a.Allocatable.MemoryBytes < b.Allocatable.MemoryBytes
	}
	if a.CapacityMilliCPU != b.CapacityMilliCPU {
		return a.CapacityMilliCPU < b.CapacityMilliCPU
	}
	return a.CapacityMemoryBytes < b.CapacityMemoryBytes
}

// estimatedPrice prices a machine at n2's on-demand rates per vCPU and GiB.
func estimatedPrice(milliCPU, memBytes int64) float64 {
	return float64(milliCPU)/1000*0.031611 + float64(memBytes)/(1<<30)*0.004237
}

func nodeMachineType(n *corev1.Node) string {
	if t := n.Labels[labelInstanceType]; t != "" {
		return t
	}
	return n.Labels[labelTypeLegacy]
}

// estimateMachineShape gives a machine type no node reported (a pool at zero nodes) a shape
// from its name, as Compute Engine names its predefined and custom types.
func (im *importer) estimateMachineShape(name, field string) error {
	parts := strings.Split(name, "-")
	var vcpu int
	var memMiB int64
	if i := indexOf(parts, "custom"); i >= 0 && i+2 < len(parts) {
		// FAMILY-custom-VCPUS-MEMORY_MIB[-ext], or custom-VCPUS-MEMORY_MIB (n1).
		v, err1 := strconv.Atoi(parts[i+1])
		m, err2 := strconv.ParseInt(parts[i+2], 10, 64)
		if err1 == nil && err2 == nil {
			vcpu, memMiB = v, m
		}
	} else if len(parts) == 3 {
		// FAMILY-{standard,highmem,highcpu}-VCPUS.
		if v, err := strconv.Atoi(parts[2]); err == nil {
			perCPU := map[string]int64{"standard": 4096, "highmem": 8192, "highcpu": 1024}[parts[1]]
			if parts[0] == "n1" && parts[1] == "standard" {
				perCPU = 3840
			}
			if perCPU > 0 {
				vcpu, memMiB = v, int64(v)*perCPU
			}
		}
	}
	if vcpu <= 0 || memMiB <= 0 {
		return model.InvalidField(field, fmt.Sprintf("%q", name), "The machine type is not in gkesim's catalogue and no node of the snapshot has it, so its size is unknown: include the pool's nodes in the objects, or use a type such as e2-standard-4")
	}
	mt := catalog.MachineType{Name: name, VCPU: vcpu, MemoryMiB: memMiB}
	im.c.MachineShapes[name] = &model.MachineShape{CapacityMilliCPU: mt.CapacityMilliCPU(), CapacityMemoryBytes: memMiB << 20,
		Allocatable:  model.Resources{MilliCPU: mt.AllocatableMilliCPU(), MemoryBytes: mt.AllocatableMemoryMiB() << 20},
		PricePerHour: estimatedPrice(mt.CapacityMilliCPU(), memMiB<<20)}
	im.note(noteApprox, "machine type not in gkesim's catalogue and on no node of the snapshot: its vCPUs and memory are read from its name, its allocatable from GKE's reservations, its price estimated at n2 rates", "machine type "+name)
	return nil
}

// buildNodes builds a pool's nodes, puts them in its instance groups (one per zone, as the
// cluster JSON names them) and keeps what GKE put on all of them, and what each had of its own.
func (im *importer) buildNodes(pn *poolNodes) error {
	c, p := im.c, pn.pool
	for _, z := range p.Locations {
		if p.Group(z) == nil {
			im.addImportedGroup(p, z, "")
		}
	}
	var built []*model.Node
	for _, kn := range pn.nodes {
		zone := nodeZone(kn)
		if l, ok := catalog.ParseLocation(zone); !ok || !l.Zonal || !strings.HasPrefix(zone, loadbalancers.RegionOf(c)+"-") {
			return model.InvalidArgument("Node %s is in zone %q, which is not a zone of the cluster's region %s.", kn.Name, zone, loadbalancers.RegionOf(c))
		}
		if !model.Contains(p.Locations, zone) {
			p.Locations = append(p.Locations, zone)
			im.note(noteWarning, "node pool has nodes in a zone its locations do not list; the zone is added to them", "NodePool "+p.Name+" ("+zone+")")
		}
		g := im.groupFor(p, zone, nodeHash(kn.Name))
		n, err := im.buildNode(p, g, kn)
		if err != nil {
			return err
		}
		c.Nodes[n.Name] = n
		g.Nodes = append(g.Nodes, n.Name)
		g.TargetSize++
		built = append(built, n)
		im.counts["Node"]++
	}
	im.poolLabels(pn, built)
	return nil
}

func (im *importer) addImportedGroup(p *model.NodePool, zone, hash string) *model.InstanceGroup {
	if hash == "" {
		hash = strings.ReplaceAll(model.UidOf(im.c.ID, p.Name, zone), "-", "")[:8]
	}
	g := &model.InstanceGroup{Name: model.InstanceGroupName(im.c.Name, p.Name, hash), Zone: zone, Hash: hash}
	p.Groups = append(p.Groups, g)
	return g
}

// groupFor is the instance group a node of the pool in zone belongs to: the one whose hash its
// name carries, or the pool's group in that zone.
func (im *importer) groupFor(p *model.NodePool, zone, hash string) *model.InstanceGroup {
	var inZone *model.InstanceGroup
	for _, g := range p.Groups {
		if g.Zone != zone {
			continue
		}
		if g.Hash == hash {
			return g
		}
		if inZone == nil {
			inZone = g
		}
	}
	if inZone != nil {
		return inZone
	}
	return im.addImportedGroup(p, zone, hash)
}

// buildNode builds one node: the pool's spec with the node's version and machine type.
func (im *importer) buildNode(p *model.NodePool, g *model.InstanceGroup, kn *corev1.Node) (*model.Node, error) {
	spec := p.Spec
	kubelet := strings.TrimPrefix(kn.Status.NodeInfo.KubeletVersion, "v")
	v, ok := catalog.ParseVersion(kubelet)
	if !ok {
		return nil, model.InvalidArgument("Node %s runs kubelet %q, which is not a GKE version (v1.X.Y-gke.N): is it a GKE node?", kn.Name, kn.Status.NodeInfo.KubeletVersion)
	}
	spec.Version = v.String()
	if mt := nodeMachineType(kn); mt != "" {
		spec.MachineType = mt
	}
	n := &model.Node{Name: kn.Name, Pool: p.Name, Zone: g.Zone, Group: g.Name, Spec: spec, State: model.NodeReady,
		Unschedulable: kn.Spec.Unschedulable, CreateTime: kn.CreationTimestamp.UTC(), ReadyTime: kn.CreationTimestamp.UTC()}
	if n.CreateTime.After(im.w.st.Now) {
		n.CreateTime, n.ReadyTime = im.w.st.Now, im.w.st.Now
	}
	for _, a := range kn.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			n.InternalIP = a.Address
		}
	}
	ready := false
	for _, cond := range kn.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			ready = cond.Status == corev1.ConditionTrue
			if t := cond.LastTransitionTime.UTC(); !t.IsZero() && !t.After(im.w.st.Now) {
				n.ReadyTime = t
			}
			// The kubelet's last heartbeat, as the node's last change (renderNode).
			if t := cond.LastHeartbeatTime.UTC(); !t.After(im.w.st.Now) {
				n.ChangeTime = t
			}
		}
	}
	if n.Unschedulable {
		n.State = model.NodeCordoned
	}
	if !ready {
		im.failed = append(im.failed, n.Name)
		im.note(noteApprox, "node was NotReady: it fails at the import, and GKE's auto-repair (if the pool has it) replaces it about 10 minutes later", "Node "+n.Name)
	}
	if kn.DeletionTimestamp != nil {
		im.note(noteWarning, "node was being deleted in the snapshot; it is imported as a node that stays", "Node "+n.Name)
	}
	own := &model.NodeOwn{}
	for _, t := range kn.Spec.Taints {
		if t.Key == "node.kubernetes.io/unschedulable" || poolHasTaint(p, t) {
			continue
		}
		t.TimeAdded = nil
		own.Taints = append(own.Taints, t)
	}
	sort.Slice(own.Taints, func(i, j int) bool {
		return own.Taints[i].Key+string(own.Taints[i].Effect) < own.Taints[j].Key+string(own.Taints[j].Effect)
	})
	if len(own.Taints) > 0 {
		keys := make([]string, len(own.Taints))
		for i, t := range own.Taints {
			keys[i] = t.Key
		}
		im.note(noteApprox, "node has taints of its own (beyond its pool's): kept on it; nodes GKE creates in its place do not get them, as on GKE", "Node "+n.Name+" ("+strings.Join(keys, ", ")+")")
	}
	if sh := shapeOf(kn); sh.Allocatable.MilliCPU > 0 && sh.Allocatable != im.c.TypeAllocatable(spec.MachineType) {
		a := sh.Allocatable
		own.Allocatable = &a
	}
	n.Own = own
	return n, nil
}

func poolHasTaint(p *model.NodePool, t corev1.Taint) bool {
	for _, pt := range p.Taints {
		if pt.Key == t.Key && pt.Value == t.Value && core.TaintEffects[pt.Effect] == t.Effect {
			return true
		}
	}
	return false
}

// poolLabels finds the labels GKE put on every node of the pool (or whose value is each
// node's zone) beyond the ones gkesim renders, and keeps each node's own.
func (im *importer) poolLabels(pn *poolNodes, built []*model.Node) {
	p := pn.pool
	if len(built) == 0 {
		return
	}
	base := func(n *model.Node) map[string]string {
		l := core.GkeNodeLabels(n)
		for k, v := range p.Labels {
			l[k] = v
		}
		return l
	}
	var common map[string]string
	zoneKeys := map[string]bool{}
	for i, kn := range pn.nodes {
		b := base(built[i])
		extra := map[string]string{}
		for k, v := range kn.Labels {
			if b[k] != v {
				extra[k] = v
			}
		}
		if i == 0 {
			common = extra
			for k, v := range extra {
				if v == built[i].Zone {
					zoneKeys[k] = true
				}
			}
			continue
		}
		for k, v := range common {
			if extra[k] != v {
				delete(common, k)
			}
		}
		for k := range zoneKeys {
			if kn.Labels[k] != built[i].Zone {
				delete(zoneKeys, k)
			}
		}
	}
	for k := range zoneKeys {
		delete(common, k)
	}
	if len(common) > 0 {
		p.NodeLabels = common
	}
	p.ZoneLabels = model.SortedKeys(zoneKeys)
	for i, kn := range pn.nodes {
		n := built[i]
		want := base(n)
		core.PoolNodeLabels(p, n.Zone, want)
		var own []string
		for k, v := range kn.Labels {
			if want[k] != v {
				if n.Own.Labels == nil {
					n.Own.Labels = map[string]string{}
				}
				n.Own.Labels[k] = v
				own = append(own, k)
			}
		}
		if len(own) > 0 {
			sort.Strings(own)
			im.note(noteApprox, "node has labels of its own (beyond its pool's): kept on it; nodes GKE creates in its place do not get them, as on GKE", "Node "+n.Name+" ("+strings.Join(own, ", ")+")")
		}
		if n.Own.Labels == nil && n.Own.Taints == nil && n.Own.Allocatable == nil {
			n.Own = nil
		}
	}
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
			w.core.Index(c, g)
		}
	}
	for _, k := range model.SortedKeys(c.PDBs) {
		w.core.PdbCounts(c, c.PDBs[k])
	}
	// The controllers report the imported objects' statuses when this change is published.
	if f := w.core.Feed(c); f != nil {
		for _, k := range model.SortedKeys(c.Deployments) {
			f.Deployments[c.Deployments[k]] = struct{}{}
		}
		for _, k := range model.SortedKeys(c.PDBs) {
			f.Pdbs[c.PDBs[k]] = struct{}{}
		}
		f.DaemonSets = true
		w.core.NoteDirty(c, f)
	}
	w.engine.Record("ClusterImported", c, "", "", "", "cluster %s imported from a snapshot taken at %s: %s", c.Name,
		im.s.time.Format(time.RFC3339), im.describeCounts())
	w.engine.EmitClusterCreated(c)
	w.engine.EmitPoolsChanged(c)
	for _, p := range im.starting {
		w.engine.Schedule(w.engine.Jitter(core.PodStartBase, core.PodStartSpread), model.Event{Kind: core.EvPodStarted, Cluster: c.Key(), Node: p.Key()})
	}
	w.core.QueueSchedule(c)
	for _, key := range model.SortedKeys(c.Deployments) {
		w.core.QueueSync(c, key)
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
		if !model.Contains(importedKinds, k) {
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
		if !model.Contains(importedKinds, k) {
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
