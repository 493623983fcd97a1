package clusterimport

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/core"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/gke"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/kuberender"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/loadbalancers"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// The node pools, instance groups and nodes of an imported cluster: each pool as its GKE JSON
// says, its nodes as the Kubernetes API listed them, and the machine shapes learnt from them.

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
		Name: in.Name, Spec: spec, Labels: maps.Clone(cfg.Labels), Taints: taints, ConfigExtra: cfg.Extra.Clone(),
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
		p.Etag = model.UIDOf(c.ID, "pool", p.Name)[:16]
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
	if i := slices.Index(parts, "custom"); i >= 0 && i+2 < len(parts) {
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
		if !slices.Contains(p.Locations, zone) {
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
		hash = strings.ReplaceAll(model.UIDOf(im.c.ID, p.Name, zone), "-", "")[:8]
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
		if pt.Key == t.Key && pt.Value == t.Value && kuberender.TaintEffects[pt.Effect] == t.Effect {
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
		l := kuberender.GKENodeLabels(im.c, n)
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
