package model

import (
	appsv1 "k8s.io/api/apps/v1"
)

// DaemonSetState is what the DaemonSet controller last reported of one of GKE's DaemonSets.
type DaemonSetState struct {
	Name   string                 `json:"name"`
	RV     int64                  `json:"rv"`
	Status appsv1.DaemonSetStatus `json:"status"`
}
