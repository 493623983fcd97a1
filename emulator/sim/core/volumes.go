package core

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim/model"
	corev1 "k8s.io/api/core/v1"
)

// The kubelet mounts a pod's volumes before it starts the containers: a pod that mounts a
// ConfigMap or a Secret that does not exist (and is not optional) stays in ContainerCreating,
// with a FailedMount event, until the object appears; then it starts as any pod does, a few
// seconds later.

// mountWait says why the pod's volumes cannot be mounted yet, in the kubelet's words, or "".
func (w *Core) mountWait(c *model.Cluster, p *model.Pod) string {
	spec := w.PodSpec(c, p)
	for _, v := range spec.Volumes {
		if missing := w.missingSource(c, p.Namespace(), v.VolumeSource); missing != "" {
			return fmt.Sprintf("MountVolume.SetUp failed for volume %q : %s not found", v.Name, missing)
		}
	}
	return ""
}

// missingSource names the ConfigMap or Secret a volume needs and the namespace lacks.
func (w *Core) missingSource(c *model.Cluster, ns string, src corev1.VolumeSource) string {
	check := func(resource, kind, name string, optional *bool) string {
		if (optional != nil && *optional) || c.Objects[resource][model.NamespacedKey(ns, name)] != nil {
			return ""
		}
		return fmt.Sprintf("%s %q", kind, name)
	}
	switch {
	case src.ConfigMap != nil:
		return check("configmaps", "configmap", src.ConfigMap.Name, src.ConfigMap.Optional)
	case src.Secret != nil:
		return check("secrets", "secret", src.Secret.SecretName, src.Secret.Optional)
	case src.Projected != nil:
		for _, s := range src.Projected.Sources {
			if s.ConfigMap != nil {
				if m := check("configmaps", "configmap", s.ConfigMap.Name, s.ConfigMap.Optional); m != "" {
					return m
				}
			}
			if s.Secret != nil {
				if m := check("secrets", "secret", s.Secret.Name, s.Secret.Optional); m != "" {
					return m
				}
			}
		}
	}
	return ""
}

// waitForMounts keeps a pod from starting while a volume's source is missing; it reports
// whether the pod must wait.
func (w *Core) waitForMounts(c *model.Cluster, p *model.Pod) bool {
	msg := w.mountWait(c, p)
	if msg != "" && msg != p.MountWait() {
		w.engine.Record("FailedMount", c, "", p.Node, "", "pod %s: %s", p.Key(), msg)
	}
	p.SetMountWait(msg)
	return msg != ""
}

// MountSourceAppeared starts, after the kubelet's usual delay, the pods of namespace ns that
// were waiting for a ConfigMap or Secret that now exists.
func (w *Core) MountSourceAppeared(c *model.Cluster, resource, ns, name string) {
	var what string
	switch resource {
	case "configmaps":
		what = fmt.Sprintf("configmap %q", name)
	case "secrets":
		what = fmt.Sprintf("secret %q", name)
	default:
		return
	}
	var waiting []*model.Pod
	for _, p := range c.Pods {
		if p.Namespace() == ns && p.MountWait() != "" && strings.Contains(p.MountWait(), what) {
			waiting = append(waiting, p)
		}
	}
	sort.Slice(waiting, func(i, j int) bool { return waiting[i].Name() < waiting[j].Name() })
	for _, p := range waiting {
		w.StartContainers(c, p)
	}
}
