// Package catalog is what GKE offers, as data: the Kubernetes versions available per release
// channel at any emulated time (a deterministic schedule), the regions and zones, the machine
// types with their allocatable resources, and the disk and image types. It holds no state and
// reads no clock: the simulation asks it about an emulated time.
package catalog

import (
	"sort"
	"strconv"
	"strings"
)

// The built-in catalogue: the regions and zones the emulator knows, and the machine types nodes
// can have (with the allocatable CPU and memory the scheduler works with).

var regionZones = map[string][]string{
	"us-central1":             {"a", "b", "c", "f"},
	"us-east1":                {"b", "c", "d"},
	"us-east4":                {"a", "b", "c"},
	"us-west1":                {"a", "b", "c"},
	"us-west2":                {"a", "b", "c"},
	"northamerica-northeast1": {"a", "b", "c"},
	"southamerica-east1":      {"a", "b", "c"},
	"europe-west1":            {"b", "c", "d"},
	"europe-west2":            {"a", "b", "c"},
	"europe-west3":            {"a", "b", "c"},
	"europe-west4":            {"a", "b", "c"},
	"europe-north1":           {"a", "b", "c"},
	"asia-east1":              {"a", "b", "c"},
	"asia-northeast1":         {"a", "b", "c"},
	"asia-south1":             {"a", "b", "c"},
	"asia-southeast1":         {"a", "b", "c"},
	"australia-southeast1":    {"a", "b", "c"},
}

// Location is a parsed GKE location: a region ("us-central1") or a zone ("us-central1-a").
type Location struct {
	Name   string
	Region string
	Zonal  bool
}

// ParseLocation resolves a location name against the catalogue.
func ParseLocation(name string) (Location, bool) {
	if _, ok := regionZones[name]; ok {
		return Location{Name: name, Region: name}, true
	}
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return Location{}, false
	}
	region, suffix := name[:i], name[i+1:]
	for _, z := range regionZones[region] {
		if z == suffix {
			return Location{Name: name, Region: region, Zonal: true}, true
		}
	}
	return Location{}, false
}

// Zones returns the zones of a region, in order.
func Zones(region string) []string {
	var out []string
	for _, z := range regionZones[region] {
		out = append(out, region+"-"+z)
	}
	return out
}

// DefaultZones are the zones a cluster's nodes go to when it names none: the zone of a zonal
// cluster, or the first three zones of a region.
func (l Location) DefaultZones() []string {
	if l.Zonal {
		return []string{l.Name}
	}
	z := Zones(l.Region)
	if len(z) > 3 {
		z = z[:3]
	}
	return z
}

// KnownRegions lists the catalogue's regions, sorted (for error messages).
func KnownRegions() []string {
	var out []string
	for r := range regionZones {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// MachineType is a Compute Engine machine type with the node resources GKE gives it.
type MachineType struct {
	Name      string
	VCPU      int
	MemoryMiB int64
	// SharedCore machines (e2-micro/small/medium) burst; GKE gives them 940m allocatable CPU.
	SharedCore bool
	// PricePerHour is the on-demand price in USD (used by the autoscaler's cost expander).
	PricePerHour float64
}

// CapacityMilliCPU is the node's CPU capacity.
func (m MachineType) CapacityMilliCPU() int64 { return int64(m.VCPU) * 1000 }

// AllocatableMilliCPU follows GKE's reservation: 6% of the first core, 1% of the next, 0.5% of
// the next two, 0.25% of every core above four.
func (m MachineType) AllocatableMilliCPU() int64 {
	if m.SharedCore {
		return 940
	}
	reserved := 0.0
	for c := 1; c <= m.VCPU; c++ {
		switch {
		case c == 1:
			reserved += 60
		case c == 2:
			reserved += 10
		case c <= 4:
			reserved += 5
		default:
			reserved += 2.5
		}
	}
	return m.CapacityMilliCPU() - int64(reserved)
}

// AllocatableMemoryMiB follows GKE's reservation: 255 MiB below 1 GiB; otherwise 25% of the
// first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112 and 2% above 128 GiB;
// plus the 100 MiB eviction threshold.
func (m MachineType) AllocatableMemoryMiB() int64 {
	mem := float64(m.MemoryMiB)
	if m.MemoryMiB < 1024 {
		return m.MemoryMiB - 255 - 100
	}
	tiers := []struct{ upTo, rate float64 }{
		{4 * 1024, 0.25}, {8 * 1024, 0.20}, {16 * 1024, 0.10}, {128 * 1024, 0.06}, {1 << 62, 0.02},
	}
	reserved, lower := 0.0, 0.0
	for _, t := range tiers {
		if mem <= lower {
			break
		}
		reserved += (min(mem, t.upTo) - lower) * t.rate
		lower = t.upTo
	}
	return m.MemoryMiB - int64(reserved) - 100
}

var machineTypes = buildMachineTypes()

func buildMachineTypes() map[string]MachineType {
	out := map[string]MachineType{}
	add := func(name string, vcpu int, memMiB int64, shared bool, cpuPrice, memPrice float64) {
		out[name] = MachineType{Name: name, VCPU: vcpu, MemoryMiB: memMiB, SharedCore: shared,
			PricePerHour: float64(vcpu)*cpuPrice + float64(memMiB)/1024*memPrice}
	}
	// e2 shared core.
	add("e2-micro", 2, 1024, true, 0.0042, 0.0006)
	add("e2-small", 2, 2048, true, 0.0084, 0.0011)
	add("e2-medium", 2, 4096, true, 0.0168, 0.0023)
	families := []struct {
		prefix       string
		sizes        []int
		gibPerVCPU   float64
		cpuP, memP   float64
		skipSmallest bool
	}{
		{"e2-standard", []int{2, 4, 8, 16, 32}, 4, 0.021811, 0.002923, false},
		{"e2-highmem", []int{2, 4, 8, 16}, 8, 0.021811, 0.002923, false},
		{"e2-highcpu", []int{2, 4, 8, 16, 32}, 1, 0.021811, 0.002923, false},
		{"n1-standard", []int{1, 2, 4, 8, 16, 32, 64, 96}, 3.75, 0.031611, 0.004237, false},
		{"n2-standard", []int{2, 4, 8, 16, 32, 48, 64, 80, 96, 128}, 4, 0.031611, 0.004237, false},
		{"n2-highmem", []int{2, 4, 8, 16, 32, 48, 64, 80, 96, 128}, 8, 0.031611, 0.004237, false},
		{"n2-highcpu", []int{2, 4, 8, 16, 32, 48, 64, 80, 96}, 1, 0.031611, 0.004237, false},
		{"n2d-standard", []int{2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224}, 4, 0.027502, 0.003686, false},
		{"c2-standard", []int{4, 8, 16, 30, 60}, 4, 0.03398, 0.00455, false},
		{"c3-standard", []int{4, 8, 22, 44, 88, 176}, 4, 0.03398, 0.00456, false},
		{"t2d-standard", []int{1, 2, 4, 8, 16, 32, 48, 60}, 4, 0.027502, 0.003686, false},
	}
	for _, f := range families {
		for _, n := range f.sizes {
			add(f.prefix+"-"+strconv.Itoa(n), n, int64(float64(n)*f.gibPerVCPU*1024), false, f.cpuP, f.memP)
		}
	}
	return out
}

// LookupMachineType finds a machine type in the catalogue.
func LookupMachineType(name string) (MachineType, bool) {
	m, ok := machineTypes[name]
	return m, ok
}

// Disk and image types GKE accepts.
var (
	DiskTypes  = []string{"pd-standard", "pd-balanced", "pd-ssd", "pd-extreme", "hyperdisk-balanced"}
	ImageTypes = []string{"COS_CONTAINERD", "UBUNTU_CONTAINERD", "WINDOWS_LTSC_CONTAINERD"}
)

const (
	DefaultMachineType = "e2-medium"
	DefaultDiskType    = "pd-balanced"
	DefaultDiskSizeGb  = 100
	DefaultImageType   = "COS_CONTAINERD"
	DefaultMaxPods     = 110
	MinDiskSizeGb      = 10
	MaxDiskSizeGb      = 65536
)
