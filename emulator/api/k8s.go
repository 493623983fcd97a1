package api

// Kubernetes-shaped objects served under a cluster's endpoint prefix (core/v1 JSON).

type TypeMeta struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
}

type ObjectMeta struct {
	Name              string            `json:"name,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	UID               string            `json:"uid,omitempty"`
	ResourceVersion   string            `json:"resourceVersion,omitempty"`
	CreationTimestamp string            `json:"creationTimestamp,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

type ListMeta struct {
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

type K8sNode struct {
	TypeMeta   `json:",inline"`
	ObjectMeta `json:"metadata"`
	Spec       K8sNodeSpec   `json:"spec"`
	Status     K8sNodeStatus `json:"status"`
}

type K8sNodeSpec struct {
	ProviderID    string      `json:"providerID,omitempty"`
	Unschedulable bool        `json:"unschedulable,omitempty"`
	Taints        []*K8sTaint `json:"taints,omitempty"`
}

type K8sTaint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

type K8sNodeStatus struct {
	Capacity    map[string]string  `json:"capacity,omitempty"`
	Allocatable map[string]string  `json:"allocatable,omitempty"`
	Conditions  []*K8sCondition    `json:"conditions,omitempty"`
	Addresses   []*K8sNodeAddress  `json:"addresses,omitempty"`
	NodeInfo    *K8sNodeSystemInfo `json:"nodeInfo,omitempty"`
}

type K8sCondition struct {
	Type               string `json:"type"`
	Status             string `json:"status"`
	LastHeartbeatTime  string `json:"lastHeartbeatTime,omitempty"`
	LastTransitionTime string `json:"lastTransitionTime,omitempty"`
	Reason             string `json:"reason,omitempty"`
	Message            string `json:"message,omitempty"`
}

type K8sNodeAddress struct {
	Type    string `json:"type"`
	Address string `json:"address"`
}

type K8sNodeSystemInfo struct {
	KubeletVersion          string `json:"kubeletVersion"`
	KubeProxyVersion        string `json:"kubeProxyVersion,omitempty"`
	OSImage                 string `json:"osImage,omitempty"`
	ContainerRuntimeVersion string `json:"containerRuntimeVersion,omitempty"`
	OperatingSystem         string `json:"operatingSystem,omitempty"`
	Architecture            string `json:"architecture,omitempty"`
}

type K8sNodeList struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Items    []*K8sNode `json:"items"`
}

// K8sStatus is metav1.Status, the Kubernetes API server's error body.
type K8sStatus struct {
	TypeMeta `json:",inline"`
	ListMeta `json:"metadata"`
	Status   string `json:"status"`
	Message  string `json:"message"`
	Reason   string `json:"reason,omitempty"`
	Code     int    `json:"code"`
}
