package core

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
)

// Fault injection (/emulator/v1/faults): conditions of the cloud that GKE's processes must
// live with. Capacity faults are simulated here: a zonal stockout (no VMs of a machine family
// in a zone) and a regional CPU quota. Surge nodes (R-SURGE-6), green pools (R-BG-1) and new
// nodes wait for capacity instead of failing, and retry every minute. API error and latency
// faults are applied by the HTTP server; they are kept here so that they persist with the state.

// Fault kinds.
const (
	FaultStockout = "STOCKOUT"
	FaultQuota    = "QUOTA"
	FaultAPIError = "API_ERROR"
	FaultLatency  = "LATENCY"

	evCapacityRetry = "capacity.retry"
	capacityRetry   = time.Minute
)

// AddFault validates and adds a fault.
func (w *Core) AddFault(f model.Fault) (*model.Fault, error) {
	switch f.Kind {
	case FaultStockout:
		if l, ok := catalog.ParseLocation(f.Zone); !ok || !l.Zonal {
			return nil, model.InvalidField("zone", fmt.Sprintf("%q", f.Zone), "A STOCKOUT fault needs a zone the emulator knows, e.g. us-central1-a")
		}
	case FaultQuota:
		if l, ok := catalog.ParseLocation(f.Region); !ok || l.Zonal {
			return nil, model.InvalidField("region", fmt.Sprintf("%q", f.Region), "A QUOTA fault needs a region, e.g. us-central1")
		}
		if f.CPUs < 0 {
			return nil, model.InvalidField("cpus", f.CPUs, "The CPU quota must not be negative")
		}
	case FaultAPIError:
		if f.Code != 429 && f.Code != 500 && f.Code != 503 {
			return nil, model.InvalidField("code", f.Code, "API_ERROR faults return 429, 500 or 503")
		}
		if f.Rate <= 0 || f.Rate > 1 {
			return nil, model.InvalidField("rate", f.Rate, "Must be in (0, 1]: the share of requests that fail")
		}
	case FaultLatency:
		if _, err := model.ParseLatency(f.Latency); err != nil {
			return nil, model.InvalidField("latency", fmt.Sprintf("%q", f.Latency), "Give a duration such as \"200ms\" or \"1s\", at most 30s")
		}
	default:
		return nil, model.InvalidField("kind", fmt.Sprintf("%q", f.Kind), "Must be one of STOCKOUT, QUOTA, API_ERROR, LATENCY")
	}
	w.st.FaultSeq++
	f.ID = fmt.Sprintf("fault-%d", w.st.FaultSeq)
	f.CreateTime = w.st.Now
	stored := f
	w.st.Faults = append(w.st.Faults, &stored)
	w.engine.Record("FaultInjected", nil, "", "", "", "fault %s injected: %s", f.ID, describeFault(&f))
	return &f, nil
}

func describeFault(f *model.Fault) string {
	scope := ""
	if f.Project != "" {
		scope = " in project " + f.Project
	}
	switch f.Kind {
	case FaultStockout:
		family := "any machine type"
		if f.MachineFamily != "" {
			family = f.MachineFamily + " machines"
		}
		return fmt.Sprintf("stockout of %s in %s%s", family, f.Zone, scope)
	case FaultQuota:
		return fmt.Sprintf("CPU quota of %d in %s%s", f.CPUs, f.Region, scope)
	case FaultAPIError:
		return fmt.Sprintf("HTTP %d on %.0f%% of requests under %q", f.Code, f.Rate*100, f.PathPrefix)
	}
	return fmt.Sprintf("%s latency on requests under %q", f.Latency, f.PathPrefix)
}

// Faults lists the faults, oldest first.
// Faults lists the faults in force, as copies the caller may keep.
func (w *Core) Faults() []*model.Fault {
	out := make([]*model.Fault, len(w.st.Faults))
	for i, f := range w.st.Faults {
		c := *f
		out[i] = &c
	}
	return out
}

// DeleteFault clears a fault; processes waiting for capacity retry at once.
func (w *Core) DeleteFault(id string) error {
	for i, f := range w.st.Faults {
		if f.ID == id {
			w.st.Faults = slices.Delete(w.st.Faults, i, i+1)
			w.engine.Record("FaultCleared", nil, "", "", "", "fault %s cleared: %s", f.ID, describeFault(f))
			for _, key := range model.SortedKeys(w.st.Clusters) {
				for _, p := range w.st.Clusters[key].Pools {
					if !p.CapacityRetry.IsZero() {
						w.engine.Schedule(0, model.Event{Kind: evCapacityRetry, Cluster: key, Pool: p.Name})
					}
				}
			}
			return nil
		}
	}
	return model.NotFound("fault %q.", id)
}

// CapacityShortage says why n more VMs of spec cannot be created in zone now, or "".
func (w *Core) CapacityShortage(c *model.Cluster, zone string, spec model.NodeSpec, n int) string {
	if n <= 0 || len(w.st.Faults) == 0 {
		return ""
	}
	family := strings.SplitN(spec.MachineType, "-", 2)[0]
	region := zone[:strings.LastIndexByte(zone, '-')]
	for _, f := range w.st.Faults {
		if f.Project != "" && f.Project != c.Project {
			continue
		}
		switch {
		case f.Kind == FaultStockout && f.Zone == zone && (f.MachineFamily == "" || f.MachineFamily == family):
			return fmt.Sprintf("GCE_STOCKOUT: The zone 'projects/%s/zones/%s' does not have enough resources available to fulfill the request (%s).", c.Project, zone, spec.MachineType)
		case f.Kind == FaultQuota && f.Region == region:
			mt, _ := c.MachineType(spec.MachineType)
			need := int64(mt.VCPU * n)
			used := w.regionCPUs(c.Project, region)
			if used+need > f.CPUs {
				return fmt.Sprintf("Insufficient regional quota to satisfy request: resource \"CPUS\": request requires '%d.0' and is short '%d.0'. project has a quota of '%d.0' with '%d.0' available.",
					need, used+need-f.CPUs, f.CPUs, max(f.CPUs-used, 0))
			}
		}
	}
	return ""
}

// regionCPUs counts the vCPUs of a project's nodes in a region.
func (w *Core) regionCPUs(project, region string) int64 {
	var n int64
	for _, c := range w.st.Clusters {
		if c.Project != project {
			continue
		}
		for _, node := range c.Nodes {
			if node.State != model.NodeDeleting && strings.HasPrefix(node.Zone, region+"-") {
				mt, _ := c.MachineType(node.Spec.MachineType)
				n += int64(mt.VCPU)
			}
		}
	}
	return n
}

// ReserveCapacity says whether n more VMs of spec can be created in zone now.
func (w *Core) ReserveCapacity(c *model.Cluster, p *model.NodePool, zone string, spec model.NodeSpec, n int) bool {
	why := w.CapacityShortage(c, zone, spec, n)
	if why == "" {
		return true
	}
	p.CapacityWhy = why
	return false
}

// WaitForCapacity notes that p waits for capacity and schedules a retry.
func (w *Core) WaitForCapacity(c *model.Cluster, p *model.NodePool, zone, what string) {
	if !p.CapacityRetry.After(w.st.Now) {
		w.engine.Record("WaitingForCapacity", c, p.Name, "", "", "cannot create %s in %s yet, retrying every %s: %s", what, zone, capacityRetry, p.CapacityWhy)
		p.CapacityRetry = w.st.Now.Add(capacityRetry)
		w.engine.Schedule(capacityRetry, model.Event{Kind: evCapacityRetry, Cluster: c.Key(), Pool: p.Name})
	}
}

func (w *Core) RegisterCapacityHandlers() {
	w.engine.On(evCapacityRetry, func(ev model.Event) {
		c := w.st.Clusters[ev.Cluster]
		if c == nil {
			return
		}
		p := c.Pool(ev.Pool)
		if p == nil || p.CapacityRetry.IsZero() {
			return
		}
		p.CapacityRetry, p.CapacityWhy = time.Time{}, ""
		w.poolNodesChanged(c, p.Name)
	})
}
