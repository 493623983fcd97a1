package model

import (
	"fmt"
	"time"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/catalog"
)

// Node pool upgrade settings (NodePool.upgradeSettings): which strategy recreates the pool's
// nodes and how (R-UPG-3, R-SURGE-1, R-BG-3/4, R-ABG-1/6, R-SL-1), validated with GKE's rules
// and filled with GKE's defaults.

const (
	MaxSoak             = 7 * 24 * time.Hour // R-BG-4: total soak of 7 days starts blue deletion
	defaultPoolSoak     = time.Hour
	defaultWaitForDrain = 3 * 24 * time.Hour // R-ABG-2
	maxWaitForDrain     = 7 * 24 * time.Hour
	defaultBatchNodes   = 1
	autoscaledBGMinimum = "1.34.0-gke.2201000" // R-ABG-1
	ShortLivedMinimum   = "1.32.2-gke.1652000" // R-SL: queued provisioning pools
)

// UpgradeContext is what a pool's upgrade settings are checked against.
type UpgradeContext struct {
	Autopilot       bool // Autopilot cluster or Autopilot-managed pool: surge only (R-UPG-3)
	ShortLived      bool // flex-start or queued provisioning: SHORT_LIVED only (R-UPG-3)
	Autoscaling     bool // cluster autoscaler enabled on the pool (R-ABG-1)
	Autoprovisioned bool // created by node auto-provisioning (R-ABG-6)
	Master          string
}

func PoolUpgradeContext(c *Cluster, p *NodePool) UpgradeContext {
	return UpgradeContext{Autopilot: c.Autopilot, ShortLived: p.ShortLived, Autoscaling: p.Autoscaling.Enabled,
		Autoprovisioned: p.Autoscaling.Autoprovisioned, Master: c.MasterVersion}
}

// NormalizeUpgradeSettings validates UpgradeSettings and fills GKE's defaults.
func NormalizeUpgradeSettings(in *api.UpgradeSettings, field string, ctx UpgradeContext) (api.UpgradeSettings, error) {
	switch {
	case ctx.ShortLived && (in == nil || in.Strategy == "" || in.Strategy == api.StrategyUnspecified || in.Strategy == api.StrategyShortLived):
		if in != nil && (in.MaxSurge != 0 || in.MaxUnavailable != 0 || in.BlueGreenSettings != nil) {
			return api.UpgradeSettings{}, InvalidArgument("Invalid value for field %q: flex-start and queued-provisioning node pools upgrade with SHORT_LIVED, which has no parameters; remove maxSurge, maxUnavailable and blueGreenSettings (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-sl-1).", field)
		}
		return api.UpgradeSettings{Strategy: api.StrategyShortLived}, nil
	case ctx.ShortLived:
		return api.UpgradeSettings{}, InvalidField(field+".strategy", in.Strategy,
			"Flex-start and queued-provisioning node pools always upgrade with SHORT_LIVED; the strategy cannot be changed (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-upg-3)")
	case in == nil:
		return api.UpgradeSettings{MaxSurge: 1, Strategy: api.StrategySurge}, nil
	}
	us := *in
	if err := ValidateEnum(field+".strategy", us.Strategy, api.StrategyUnspecified, api.StrategySurge, api.StrategyBlueGreen, api.StrategyShortLived); err != nil {
		return us, err
	}
	if us.Strategy == "" || us.Strategy == api.StrategyUnspecified {
		us.Strategy = api.StrategySurge
	}
	if us.MaxSurge < 0 {
		return us, InvalidField(field+".maxSurge", us.MaxSurge, "maxSurge must not be negative")
	}
	if us.MaxUnavailable < 0 {
		return us, InvalidField(field+".maxUnavailable", us.MaxUnavailable, "maxUnavailable must not be negative")
	}
	switch us.Strategy {
	case api.StrategyShortLived:
		return us, InvalidField(field+".strategy", us.Strategy,
			"SHORT_LIVED is only for flex-start and queued-provisioning node pools, which get it automatically (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-upg-3); use SURGE or BLUE_GREEN")
	case api.StrategyBlueGreen:
		if ctx.Autopilot {
			return us, InvalidField(field+".strategy", us.Strategy, "Autopilot clusters and Autopilot-managed node pools always use surge upgrades; the strategy cannot be changed (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-upg-3)")
		}
		bg, err := normalizeBlueGreen(us.BlueGreenSettings, field+".blueGreenSettings", ctx)
		if err != nil {
			return us, err
		}
		us.BlueGreenSettings = bg
		// R-SURGE-11: the changes a blue-green pool still makes with surge use GKE's surge
		// defaults when the request sets neither number (0 and 0 cannot be told from unset).
		us.MaxSurge, us.MaxUnavailable = defaultSurge(us.MaxSurge, us.MaxUnavailable)
	default: // SURGE
		if us.MaxSurge == 0 && us.MaxUnavailable == 0 {
			return us, InvalidArgument("Invalid value for field %q: maxSurge and maxUnavailable are both 0; at least one of them must be greater than zero for the SURGE strategy (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/node-upgrades#r-surge-1).", field)
		}
		if us.BlueGreenSettings != nil {
			return us, InvalidArgument("Invalid value for field %q: blueGreenSettings may only be set with strategy BLUE_GREEN (strategy is %s).", field+".blueGreenSettings", us.Strategy)
		}
	}
	return us, nil
}

// defaultSurge gives GKE's surge defaults, maxSurge 1 and maxUnavailable 0, to settings that
// set neither (R-SURGE-1, R-SURGE-11); settings with either above 0 are kept.
func defaultSurge(maxSurge, maxUnavailable int32) (int32, int32) {
	if maxSurge <= 0 && maxUnavailable <= 0 {
		return 1, 0
	}
	return maxSurge, maxUnavailable
}

// SurgeLimits is the maxSurge and maxUnavailable a surge upgrade of a pool with these
// settings runs with: GKE's defaults when the pool set neither, so that no surge upgrade
// starts that could never replace a node (R-SURGE-11).
func SurgeLimits(us api.UpgradeSettings) (maxSurge, maxUnavailable int) {
	s, u := defaultSurge(us.MaxSurge, us.MaxUnavailable)
	return int(s), int(u)
}

func normalizeBlueGreen(in *api.BlueGreenSettings, field string, ctx UpgradeContext) (*api.BlueGreenSettings, error) {
	bg := &api.BlueGreenSettings{}
	if in != nil {
		c := *in
		bg = &c
	}
	if bg.StandardRolloutPolicy != nil && bg.AutoscaledRolloutPolicy != nil {
		return nil, InvalidArgument("Invalid value for field %q: BlueGreenSettings must contain only one of: standardRolloutPolicy, autoscaledRolloutPolicy.", field)
	}
	if p := bg.AutoscaledRolloutPolicy; p != nil {
		// R-ABG-1, R-ABG-6.
		if v, ok := catalog.ParseVersion(ctx.Master); ok {
			min, _ := catalog.ParseVersion(autoscaledBGMinimum)
			if v.Compare(min) < 0 {
				return nil, InvalidArgument("Invalid value for field %q: autoscaled blue-green upgrades need a control plane on %s or later; the cluster runs %s. Upgrade the control plane first (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-abg-1).",
					field+".autoscaledRolloutPolicy", autoscaledBGMinimum, ctx.Master)
			}
		}
		if !ctx.Autoscaling {
			return nil, InvalidArgument("Invalid value for field %q: autoscaled blue-green upgrades need the cluster autoscaler on the node pool; enable autoscaling first (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-abg-1).", field+".autoscaledRolloutPolicy")
		}
		if ctx.Autoprovisioned {
			return nil, InvalidArgument("Invalid value for field %q: node pools created by node auto-provisioning cannot use autoscaled blue-green upgrades (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-abg-6).", field+".autoscaledRolloutPolicy")
		}
		wait, err := durationField(field+".autoscaledRolloutPolicy.waitForDrainDuration", p.WaitForDrainDuration, defaultWaitForDrain, 0, maxWaitForDrain)
		if err != nil {
			return nil, err
		}
		bg.AutoscaledRolloutPolicy = &api.AutoscaledRolloutPolicy{WaitForDrainDuration: api.FormatDuration(wait)}
		if bg.NodePoolSoakDuration != "" {
			return nil, InvalidArgument("Invalid value for field %q: autoscaled blue-green upgrades have no node pool soak phase (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-abg-3); remove nodePoolSoakDuration.", field+".nodePoolSoakDuration")
		}
		return bg, nil
	}
	sp := &api.StandardRolloutPolicy{}
	if bg.StandardRolloutPolicy != nil {
		c := *bg.StandardRolloutPolicy
		sp = &c
	}
	f := field + ".standardRolloutPolicy"
	switch {
	case sp.BatchPercentage != nil && sp.BatchNodeCount != nil:
		return nil, InvalidArgument("Invalid value for field %q: StandardRolloutPolicy must contain only one of: batchNodeCount, batchPercentage.", f)
	case sp.BatchPercentage != nil && (*sp.BatchPercentage < 0 || *sp.BatchPercentage > 1):
		return nil, InvalidField(f+".batchPercentage", *sp.BatchPercentage, "Must be between 0.0 and 1.0 (a fraction of the blue pool's nodes per batch; 0 skips the drain phase; see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-bg-3)")
	case sp.BatchNodeCount != nil && *sp.BatchNodeCount < 0:
		return nil, InvalidField(f+".batchNodeCount", *sp.BatchNodeCount, "Must not be negative (0 skips the drain phase; see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-bg-3)")
	case sp.BatchPercentage == nil && sp.BatchNodeCount == nil:
		n := int32(defaultBatchNodes)
		sp.BatchNodeCount = &n
	}
	batchSoak, err := durationField(f+".batchSoakDuration", sp.BatchSoakDuration, 0, 0, MaxSoak)
	if err != nil {
		return nil, err
	}
	sp.BatchSoakDuration = api.FormatDuration(batchSoak)
	poolSoak, err := durationField(field+".nodePoolSoakDuration", bg.NodePoolSoakDuration, defaultPoolSoak, 0, MaxSoak)
	if err != nil {
		return nil, err
	}
	bg.StandardRolloutPolicy = sp
	bg.NodePoolSoakDuration = api.FormatDuration(poolSoak)
	return bg, nil
}

// durationField parses a Duration field ("" gives def) and checks it is within [min, max].
func durationField(field, v string, def, min, max time.Duration) (time.Duration, error) {
	if v == "" {
		return def, nil
	}
	d, err := api.ParseDuration(v)
	if err != nil {
		return 0, InvalidField(field, fmt.Sprintf("%q", v), "Durations are seconds with an s suffix, e.g. \"3600s\"")
	}
	if d < min || d > max {
		return 0, InvalidField(field, fmt.Sprintf("%q", v), "Must be between %s and %s", api.FormatDuration(min), api.FormatDuration(max))
	}
	return d, nil
}

// CheckAutoscalingKeepsStrategy refuses to turn the autoscaler off under a pool whose upgrades
// need it (autoscaled blue-green, R-ABG-1).
func CheckAutoscalingKeepsStrategy(p *NodePool, as api.NodePoolAutoscaling, field string) error {
	bg := p.UpgradeSettings.BlueGreenSettings
	if !as.Enabled && bg != nil && bg.AutoscaledRolloutPolicy != nil {
		return InvalidArgument("Invalid value for field %q: node pool %s upgrades with autoscaled blue-green, which needs the cluster autoscaler (see https://registry.terraform.io/providers/gkesim/gkesim/latest/docs/guides/blue-green-upgrades#r-abg-1); change the upgrade strategy before disabling autoscaling.", field, p.Name)
	}
	return nil
}
