package api

// Compute Engine v1 objects: the read-only view of what GKE creates in Compute Engine.

type InstanceGroupManager struct {
	Kind              string                      `json:"kind"`
	Id                string                      `json:"id,omitempty"`
	Name              string                      `json:"name"`
	Zone              string                      `json:"zone"`
	SelfLink          string                      `json:"selfLink"`
	BaseInstanceName  string                      `json:"baseInstanceName"`
	InstanceGroup     string                      `json:"instanceGroup"`
	InstanceTemplate  string                      `json:"instanceTemplate,omitempty"`
	TargetSize        int32                       `json:"targetSize"`
	CurrentActions    *InstanceGroupManagerAction `json:"currentActions"`
	Status            *InstanceGroupManagerStatus `json:"status"`
	CreationTimestamp string                      `json:"creationTimestamp,omitempty"`
}

type InstanceGroupManagerAction struct {
	None       int32 `json:"none"`
	Creating   int32 `json:"creating"`
	Deleting   int32 `json:"deleting"`
	Recreating int32 `json:"recreating"`
	Abandoning int32 `json:"abandoning"`
	Refreshing int32 `json:"refreshing"`
	Restarting int32 `json:"restarting"`
	Verifying  int32 `json:"verifying"`
}

type InstanceGroupManagerStatus struct {
	IsStable bool `json:"isStable"`
}

type InstanceGroupManagerList struct {
	Kind     string                  `json:"kind"`
	Id       string                  `json:"id"`
	Items    []*InstanceGroupManager `json:"items"`
	SelfLink string                  `json:"selfLink"`
}

type ManagedInstance struct {
	Instance       string `json:"instance"`
	InstanceStatus string `json:"instanceStatus,omitempty"`
	CurrentAction  string `json:"currentAction"`
}

type ManagedInstanceList struct {
	ManagedInstances []*ManagedInstance `json:"managedInstances"`
}
