package model

import (
	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// CheckManagement applies GKE's rule that clusters in a release channel keep auto-upgrade and
// auto-repair on.
func (c *Cluster) CheckManagement(autoUpgrade, autoRepair bool) error {
	if c.ReleaseChannel == api.ChannelUnspecified || c.ReleaseChannel == "" {
		return nil
	}
	if !autoUpgrade || !autoRepair {
		return InvalidArgument("Auto_upgrade and auto_repair cannot be false when release_channel %s is set. Set management.autoUpgrade and management.autoRepair to true, or use release channel UNSPECIFIED.", c.ReleaseChannel)
	}
	return nil
}
