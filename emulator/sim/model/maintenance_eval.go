package model

// UpgradeKind is a kind of maintenance as exclusion scopes tell them apart (R-EX-1).
type UpgradeKind string

const (
	ControlPlaneMinor      UpgradeKind = "CONTROL_PLANE_MINOR"
	ControlPlanePatch      UpgradeKind = "CONTROL_PLANE_PATCH"
	ControlPlaneDisruption UpgradeKind = "CONTROL_PLANE_VM_DISRUPTION"
	NodeMinor              UpgradeKind = "NODE_MINOR"
	NodePatch              UpgradeKind = "NODE_PATCH"
	NodeDisruption         UpgradeKind = "NODE_VM_DISRUPTION"
)

// IsNode says whether the kind changes nodes (rather than the control plane).
func (k UpgradeKind) IsNode() bool { return k == NodeMinor || k == NodePatch || k == NodeDisruption }

func (k UpgradeKind) Describe() string {
	return map[UpgradeKind]string{
		ControlPlaneMinor: "control-plane minor upgrades", ControlPlanePatch: "control-plane patch upgrades",
		ControlPlaneDisruption: "control-plane VM disruption", NodeMinor: "node minor upgrades",
		NodePatch: "node patch upgrades", NodeDisruption: "node VM disruption",
	}[k]
}
