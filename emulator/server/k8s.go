package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/labstack/echo/v4"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The Kubernetes-shaped API of each cluster, under its endpoint prefix
// /k8s/projects/{p}/locations/{l}/clusters/{c}: namespaces, nodes, pods (and their eviction),
// Deployments (and their scale) and PodDisruptionBudgets, in Kubernetes JSON.

func (s *Server) k8sRoutes(g *echo.Group) {
	g.GET("/api/v1/namespaces", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.ListNamespaces(cl), nil
	}))
	g.POST("/api/v1/namespaces", s.k8sBody(&corev1.Namespace{}, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreateNamespace(cl, in.(*corev1.Namespace))
	}))
	g.GET("/api/v1/namespaces/:ns", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetNamespace(cl, c.Param("ns"))
	}))
	g.DELETE("/api/v1/namespaces/:ns", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.DeleteNamespace(cl, c.Param("ns"))
	}))

	g.GET("/api/v1/nodes", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return &corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NodeList"},
			ListMeta: metav1.ListMeta{ResourceVersion: fmt.Sprint(cl.RV)}, Items: w.K8sNodes(cl)}, nil
	}))
	g.GET("/api/v1/nodes/:name", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetK8sNode(cl, c.Param("name"))
	}))
	g.PATCH("/api/v1/nodes/:name", s.patchNode)

	pods := func(path string) string { return "/api/v1/namespaces/:ns/pods" + path }
	g.GET("/api/v1/pods", s.listPods)
	g.GET(pods(""), s.listPods)
	g.POST(pods(""), s.k8sBody(&corev1.Pod{}, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreatePod(cl, c.Param("ns"), in.(*corev1.Pod))
	}))
	g.GET(pods("/:name"), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetPod(cl, c.Param("ns"), c.Param("name"))
	}))
	g.DELETE(pods("/:name"), s.k8sBody(&metav1.DeleteOptions{}, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		opts := in.(*metav1.DeleteOptions)
		return w.DeletePod(cl, c.Param("ns"), c.Param("name"), opts.GracePeriodSeconds)
	}))
	g.POST(pods("/:name/eviction"), s.k8sBody(&policyv1.Eviction{}, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		if err := w.EvictPod(cl, c.Param("ns"), c.Param("name")); err != nil {
			return nil, err
		}
		return &metav1.Status{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Status"}, Status: metav1.StatusSuccess, Code: http.StatusCreated}, nil
	}))

	deploy := func(path string) string { return "/apis/apps/v1/namespaces/:ns/deployments" + path }
	g.GET("/apis/apps/v1/deployments", s.listDeployments)
	g.GET(deploy(""), s.listDeployments)
	g.POST(deploy(""), s.k8sBody(&appsv1.Deployment{}, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreateDeployment(cl, c.Param("ns"), in.(*appsv1.Deployment))
	}))
	g.GET(deploy("/:name"), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetDeployment(cl, c.Param("ns"), c.Param("name"))
	}))
	g.PUT(deploy("/:name"), s.k8sBody(&appsv1.Deployment{}, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.UpdateDeployment(cl, c.Param("ns"), c.Param("name"), in.(*appsv1.Deployment))
	}))
	g.PATCH(deploy("/:name"), s.k8sPatch(&appsv1.Deployment{},
		func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			return w.GetDeployment(cl, c.Param("ns"), c.Param("name"))
		},
		func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
			return w.UpdateDeployment(cl, c.Param("ns"), c.Param("name"), in.(*appsv1.Deployment))
		}))
	g.DELETE(deploy("/:name"), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.DeleteDeployment(cl, c.Param("ns"), c.Param("name"))
	}))
	getScale := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetScale(cl, c.Param("ns"), c.Param("name"))
	}
	setScale := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		sc := in.(*autoscalingv1.Scale)
		return w.SetScale(cl, c.Param("ns"), c.Param("name"), sc.Spec.Replicas, sc.ResourceVersion)
	}
	g.GET(deploy("/:name/scale"), s.k8s(getScale))
	g.PUT(deploy("/:name/scale"), s.k8sBody(&autoscalingv1.Scale{}, setScale))
	g.PATCH(deploy("/:name/scale"), s.k8sPatch(&autoscalingv1.Scale{}, getScale, setScale))

	pdb := func(path string) string { return "/apis/policy/v1/namespaces/:ns/poddisruptionbudgets" + path }
	g.GET("/apis/policy/v1/poddisruptionbudgets", s.listPDBs)
	g.GET(pdb(""), s.listPDBs)
	g.POST(pdb(""), s.k8sBody(&policyv1.PodDisruptionBudget{}, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreatePDB(cl, c.Param("ns"), in.(*policyv1.PodDisruptionBudget))
	}))
	g.GET(pdb("/:name"), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetPDB(cl, c.Param("ns"), c.Param("name"))
	}))
	g.PUT(pdb("/:name"), s.k8sBody(&policyv1.PodDisruptionBudget{}, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.UpdatePDB(cl, c.Param("ns"), c.Param("name"), in.(*policyv1.PodDisruptionBudget))
	}))
	g.PATCH(pdb("/:name"), s.k8sPatch(&policyv1.PodDisruptionBudget{},
		func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			return w.GetPDB(cl, c.Param("ns"), c.Param("name"))
		},
		func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
			return w.UpdatePDB(cl, c.Param("ns"), c.Param("name"), in.(*policyv1.PodDisruptionBudget))
		}))
	g.DELETE(pdb("/:name"), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.DeletePDB(cl, c.Param("ns"), c.Param("name"))
	}))
}

type k8sHandler func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error)
type k8sBodyHandler func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error)

// k8sCluster resolves the cluster of a Kubernetes-shaped request.
func k8sCluster(c echo.Context, w *sim.World) (*sim.Cluster, error) {
	cl := w.Cluster(c.Param("project"), c.Param("location"), c.Param("cluster"))
	if cl == nil {
		return nil, notFoundf("cluster %q not found in projects/%s/locations/%s", c.Param("cluster"), c.Param("project"), c.Param("location"))
	}
	if !cl.ControlPlaneReady {
		return nil, &sim.Error{HTTPCode: http.StatusServiceUnavailable, Status: "ServiceUnavailable", KubeReason: "ServiceUnavailable",
			Message: fmt.Sprintf("the control plane of cluster %s is not up yet (status %s)", cl.Name, cl.Status)}
	}
	return cl, nil
}

// k8s runs fn on the simulation with the request's cluster and writes its answer.
func (s *Server) k8s(fn k8sHandler) echo.HandlerFunc {
	return func(c echo.Context) error {
		return s.do(c, func(w *sim.World) (any, error) {
			cl, err := k8sCluster(c, w)
			if err != nil {
				return nil, err
			}
			return fn(w, cl, c)
		})
	}
}

// k8sBody decodes the request body into a fresh copy of proto, then runs fn.
func (s *Server) k8sBody(proto any, fn k8sBodyHandler) echo.HandlerFunc {
	return func(c echo.Context) error {
		in := newLike(proto)
		if err := decode(c, in); err != nil {
			return kubeBadRequest(err)
		}
		return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) { return fn(w, cl, c, in) })(c)
	}
}

// k8sPatch applies a JSON merge patch (or a strategic merge patch, treated as one: fine for the
// field updates kubectl scale, label and annotate send) to the current object and stores the
// result with update.
func (s *Server) k8sPatch(proto any, get k8sHandler, update k8sBodyHandler) echo.HandlerFunc {
	return func(c echo.Context) error {
		switch ct := c.Request().Header.Get(echo.HeaderContentType); {
		case strings.HasPrefix(ct, "application/merge-patch+json"), strings.HasPrefix(ct, "application/strategic-merge-patch+json"):
		default:
			return &sim.Error{HTTPCode: http.StatusUnsupportedMediaType, Status: "UnsupportedMediaType", KubeReason: "UnsupportedMediaType",
				Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/merge-patch+json, application/strategic-merge-patch+json (got %q)", ct)}
		}
		patch, err := io.ReadAll(io.LimitReader(c.Request().Body, maxBodyBytes))
		if err != nil {
			return kubeBadRequest(err)
		}
		return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			cur, err := get(w, cl, c)
			if err != nil {
				return nil, err
			}
			doc, err := json.Marshal(cur)
			if err != nil {
				return nil, err
			}
			merged, err := jsonpatch.MergePatch(doc, patch)
			if err != nil {
				return nil, kubeBadRequest(fmt.Errorf("invalid patch: %v", err))
			}
			in := newLike(proto)
			if err := json.Unmarshal(merged, in); err != nil {
				return nil, kubeBadRequest(fmt.Errorf("the patched object is invalid: %v", err))
			}
			return update(w, cl, c, in)
		})(c)
	}
}

// newLike allocates a new zero value of proto's type.
func newLike(proto any) any {
	switch proto.(type) {
	case *corev1.Namespace:
		return &corev1.Namespace{}
	case *corev1.Pod:
		return &corev1.Pod{}
	case *appsv1.Deployment:
		return &appsv1.Deployment{}
	case *autoscalingv1.Scale:
		return &autoscalingv1.Scale{}
	case *policyv1.PodDisruptionBudget:
		return &policyv1.PodDisruptionBudget{}
	case *policyv1.Eviction:
		return &policyv1.Eviction{}
	case *metav1.DeleteOptions:
		return &metav1.DeleteOptions{}
	}
	panic(fmt.Sprintf("newLike: unsupported type %T", proto))
}

func kubeBadRequest(err error) error {
	if e, ok := sim.AsError(err); ok {
		e.KubeReason = "BadRequest"
		return e
	}
	return &sim.Error{HTTPCode: http.StatusBadRequest, Status: "BadRequest", KubeReason: "BadRequest", Message: err.Error()}
}

// listOptions reads the namespace and the labelSelector / fieldSelector query parameters.
func listOptions(c echo.Context) (sim.ListOptions, error) {
	o := sim.ListOptions{Namespace: c.Param("ns")}
	if v := c.QueryParam("labelSelector"); v != "" {
		sel, err := labels.Parse(v)
		if err != nil {
			return o, kubeBadRequest(fmt.Errorf("unable to parse requirement: %v", err))
		}
		o.Labels = sel
	}
	if v := c.QueryParam("fieldSelector"); v != "" {
		sel, err := fields.ParseSelector(v)
		if err != nil {
			return o, kubeBadRequest(fmt.Errorf("invalid field selector: %v", err))
		}
		for _, r := range sel.Requirements() {
			switch r.Field {
			case "spec.nodeName":
				o.NodeName = r.Value
			case "status.phase":
				o.Phase = r.Value
			case "metadata.namespace":
				o.Namespace = r.Value
			case "metadata.name":
			default:
				return o, kubeBadRequest(fmt.Errorf("field label not supported: %s", r.Field))
			}
		}
	}
	return o, nil
}

func (s *Server) listPods(c echo.Context) error {
	o, err := listOptions(c)
	if err != nil {
		return err
	}
	return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) { return w.ListPods(cl, o), nil })(c)
}

func (s *Server) listDeployments(c echo.Context) error {
	o, err := listOptions(c)
	if err != nil {
		return err
	}
	return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) { return w.ListDeployments(cl, o), nil })(c)
}

func (s *Server) listPDBs(c echo.Context) error {
	o, err := listOptions(c)
	if err != nil {
		return err
	}
	return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) { return w.ListPDBs(cl, o), nil })(c)
}

// patchNode supports what kubectl cordon/uncordon send: {"spec":{"unschedulable":true}}.
func (s *Server) patchNode(c echo.Context) error {
	var patch struct {
		Spec struct {
			Unschedulable *bool `json:"unschedulable"`
		} `json:"spec"`
	}
	if err := decode(c, &patch); err != nil {
		return kubeBadRequest(err)
	}
	return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		if patch.Spec.Unschedulable == nil {
			return w.GetK8sNode(cl, c.Param("name"))
		}
		return w.SetNodeUnschedulable(cl, c.Param("name"), *patch.Spec.Unschedulable)
	})(c)
}
