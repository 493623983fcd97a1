package server

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/labstack/echo/v4"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// The Kubernetes-shaped API of each cluster, under its endpoint prefix
// /k8s/projects/{p}/locations/{l}/clusters/{c}: namespaces, nodes, pods (and their eviction),
// Deployments (and their scale), PodDisruptionBudgets, Services (k8s_services.go), and read-only
// DaemonSets and Events, in Kubernetes JSON or, when kubectl asks for one, as a Table (k8s_table.go).

func (s *Server) k8sRoutes(g *echo.Group) {
	s.k8sDiscoveryRoutes(g)
	s.k8sLeaseRoutes(g)

	g.GET("/api/v1/namespaces", s.k8sList("namespaces", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListNamespaces(cl)
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

	g.GET("/api/v1/nodes", s.k8sList("nodes", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return &corev1.NodeList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "NodeList"},
			ListMeta: metav1.ListMeta{ResourceVersion: fmt.Sprint(cl.RV)}, Items: w.K8sNodes(cl)}
	}))
	getNode := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetK8sNode(cl, c.Param("name"))
	}
	g.GET("/api/v1/nodes/:name", s.k8s(getNode))
	g.PATCH("/api/v1/nodes/:name", s.k8sPatch(&corev1.Node{}, getNode, updateNode))

	pods := func(path string) string { return "/api/v1/namespaces/:ns/pods" + path }
	listPods := s.k8sList("pods", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListPods(cl, o)
	})
	g.GET("/api/v1/pods", listPods)
	g.GET(pods(""), listPods)
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
	listDeployments := s.k8sList("deployments", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListDeployments(cl, o)
	})
	g.GET("/apis/apps/v1/deployments", listDeployments)
	g.GET(deploy(""), listDeployments)
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
	listPDBs := s.k8sList("poddisruptionbudgets", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListPDBs(cl, o)
	})
	g.GET("/apis/policy/v1/poddisruptionbudgets", listPDBs)
	g.GET(pdb(""), listPDBs)
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

	s.k8sServiceRoutes(g)

	// Read-only: GKE's system DaemonSets (kubectl drain looks them up) and the event log as Events.
	listDaemonSets := s.k8sList("daemonsets", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListDaemonSets(cl, o)
	})
	// Read-only: ReplicaSets (one per pod template of a Deployment) and an imported cluster's
	// StatefulSets, so that kubectl get replicasets,statefulsets works (an export does it).
	listReplicaSets := s.k8sList("replicasets", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListReplicaSets(cl, o)
	})
	g.GET("/apis/apps/v1/replicasets", listReplicaSets)
	g.GET("/apis/apps/v1/namespaces/:ns/replicasets", listReplicaSets)
	listStatefulSets := s.k8sList("statefulsets", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListStatefulSets(cl, o)
	})
	g.GET("/apis/apps/v1/statefulsets", listStatefulSets)
	g.GET("/apis/apps/v1/namespaces/:ns/statefulsets", listStatefulSets)
	g.GET("/apis/apps/v1/daemonsets", listDaemonSets)
	g.GET("/apis/apps/v1/namespaces/:ns/daemonsets", listDaemonSets)
	g.GET("/apis/apps/v1/namespaces/:ns/daemonsets/:name", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetDaemonSet(cl, c.Param("ns"), c.Param("name"))
	}))
	listEvents := s.k8sList("events", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, f listFilter) runtime.Object {
		return k8sEvents(w, cl, o.Namespace, f.equal("involvedObject.name"))
	})
	g.GET("/api/v1/events", listEvents)
	g.GET("/api/v1/namespaces/:ns/events", listEvents)
	g.GET("/api/v1/namespaces/:ns/events/:name", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return getEvent(w, cl, c.Param("ns"), c.Param("name"))
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

// k8s runs fn on the simulation with the request's cluster and writes its answer: a Table
// when the client asked for one and the kind has a printer, else the object. Creations answer
// 201 as the API server's do.
func (s *Server) k8s(fn k8sHandler) echo.HandlerFunc {
	return func(c echo.Context) error {
		tr, err := parseTableRequest(c.Request().Header.Get(echo.HeaderAccept), c.QueryParam("includeObject"))
		if err != nil {
			return err
		}
		var out any
		var now time.Time
		err = s.runner.Do(c.Request().Context(), func(w *sim.World) error {
			cl, err := k8sCluster(c, w)
			if err != nil {
				return err
			}
			out, err = fn(w, cl, c)
			now = w.Now()
			if err == nil && s.inspect != nil {
				s.inspect(w, out)
			}
			return err
		})
		if err != nil {
			return err
		}
		code := http.StatusOK
		if c.Request().Method == http.MethodPost {
			code = http.StatusCreated
		}
		if tr.version != "" {
			t, ok, err := toTable(out, now, tr)
			if err != nil {
				return err
			}
			if ok {
				return writeJSON(c, code, t)
			}
		}
		return writeJSON(c, code, out)
	}
}

// k8sList serves a list: list builds it with what the simulation can narrow by (namespace,
// labels, node; f for hints of its own), then the request's selectors filter its items.
func (s *Server) k8sList(resource string, list func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, f listFilter) runtime.Object) echo.HandlerFunc {
	return func(c echo.Context) error {
		if w := c.QueryParam("watch"); w == "true" || w == "1" {
			// 410 Expired is what a watch from a compacted resourceVersion gets: client-go's
			// reflectors (kubectl delete --wait, kubectl wait, rollout status) then list again
			// quietly, so waiting works by polling; kubectl get -w prints the message.
			return &sim.Error{HTTPCode: http.StatusGone, Status: "Expired", KubeReason: "Expired",
				Message: fmt.Sprintf("gkesim does not serve watches of %s: list them again instead (kubectl get without -w)", resource)}
		}
		f, o, err := parseListFilter(c, resource)
		if err != nil {
			return err
		}
		return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			out := list(w, cl, o, f)
			return out, f.apply(out)
		})(c)
	}
}

// k8sBody decodes the request body into a fresh copy of proto, then runs fn.
func (s *Server) k8sBody(proto any, fn k8sBodyHandler) echo.HandlerFunc {
	return func(c echo.Context) error {
		body, err := readK8sBody(c)
		if err != nil {
			return err
		}
		in := newLike(proto)
		if len(strings.TrimSpace(string(body))) > 0 {
			if err := decodeK8s(c, body, in); err != nil {
				return err
			}
		}
		return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) { return fn(w, cl, c, in) })(c)
	}
}

// readK8sBody reads a request body of at most maxBodyBytes.
func readK8sBody(c echo.Context) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, maxBodyBytes+1))
	if err != nil {
		return nil, kubeBadRequest(fmt.Errorf("could not read the request body: %v", err))
	}
	if len(body) > maxBodyBytes {
		return nil, &sim.Error{HTTPCode: http.StatusRequestEntityTooLarge, Status: "RequestEntityTooLarge", KubeReason: "RequestEntityTooLarge",
			Message: fmt.Sprintf("the request body is larger than %d bytes", maxBodyBytes)}
	}
	return body, nil
}

// decodeK8s decodes a Kubernetes object as the API server does: field names are
// case-sensitive, and unknown or duplicate fields are handled as the fieldValidation parameter
// says: Strict refuses the request (400, what kubectl create/apply send by default), Warn (the
// default) answers with a Warning header kubectl prints, Ignore drops them.
func decodeK8s(c echo.Context, body []byte, into any) error {
	kind := reflect.TypeOf(into).Elem().Name()
	cannot := func(format string, args ...any) error {
		return kubeBadRequest(fmt.Errorf("%s in version \"v1\" cannot be handled as a %s: %s", kind, kind, fmt.Sprintf(format, args...)))
	}
	v := c.QueryParam("fieldValidation")
	if errs := metav1validation.ValidateFieldValidation(field.NewPath("fieldValidation"), v); len(errs) > 0 {
		return kubeBadRequest(errs.ToAggregate())
	}
	strict, err := kjson.UnmarshalStrict(body, into)
	if err != nil {
		return cannot("%v", err)
	}
	if len(strict) == 0 {
		return nil
	}
	switch v {
	case "Strict":
		msgs := make([]string, len(strict))
		for i, e := range strict {
			msgs[i] = e.Error()
		}
		return cannot("strict decoding error: %s", strings.Join(msgs, ", "))
	case "", "Warn":
		for _, e := range strict {
			c.Response().Header().Add("Warning", "299 - "+strconv.Quote(e.Error()))
		}
	}
	return nil
}

// k8sPatch applies a patch to the current object and stores the result with update: a JSON
// merge patch, a strategic merge patch (what kubectl apply, cordon, label and annotate send;
// lists merge by their patch keys, as on the API server) or a JSON patch (kubectl patch
// --type json). Server-side apply is not supported.
func (s *Server) k8sPatch(proto any, get k8sHandler, update k8sBodyHandler) echo.HandlerFunc {
	return func(c echo.Context) error {
		ct, _, _ := strings.Cut(c.Request().Header.Get(echo.HeaderContentType), ";")
		switch ct = strings.TrimSpace(ct); ct {
		case "application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json":
		default:
			return &sim.Error{HTTPCode: http.StatusUnsupportedMediaType, Status: "UnsupportedMediaType", KubeReason: "UnsupportedMediaType",
				Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json (got %q)", ct)}
		}
		patch, err := readK8sBody(c)
		if err != nil {
			return err
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
			var patched []byte
			switch ct {
			case "application/merge-patch+json":
				patched, err = jsonpatch.MergePatch(doc, patch)
			case "application/strategic-merge-patch+json":
				patched, err = strategicpatch.StrategicMergePatch(doc, patch, newLike(proto))
			default:
				var p jsonpatch.Patch
				if p, err = jsonpatch.DecodePatch(patch); err == nil {
					patched, err = p.Apply(doc)
				}
			}
			if err != nil {
				return nil, kubeBadRequest(fmt.Errorf("invalid patch: %v", err))
			}
			in := newLike(proto)
			if err := decodeK8s(c, patched, in); err != nil {
				return nil, err
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
	case *corev1.Node:
		return &corev1.Node{}
	case *corev1.Pod:
		return &corev1.Pod{}
	case *corev1.Service:
		return &corev1.Service{}
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

// updateNode stores a patched node. Only spec.unschedulable may change (kubectl cordon,
// uncordon, drain): a node's labels, annotations and taints come from its node pool, and a
// change to them is refused rather than dropped.
func updateNode(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
	want := in.(*corev1.Node)
	cur, err := w.GetK8sNode(cl, c.Param("name"))
	if err != nil {
		return nil, err
	}
	userTaints := func(ts []corev1.Taint) []corev1.Taint {
		var out []corev1.Taint
		for _, t := range ts {
			if t.Key != corev1.TaintNodeUnschedulable {
				out = append(out, t)
			}
		}
		return out
	}
	for _, f := range []struct {
		field string
		same  bool
	}{
		{"metadata.labels", reflect.DeepEqual(want.Labels, cur.Labels)},
		{"metadata.annotations", reflect.DeepEqual(want.Annotations, cur.Annotations)},
		{"spec.taints", reflect.DeepEqual(userTaints(want.Spec.Taints), userTaints(cur.Spec.Taints))},
	} {
		if !f.same {
			return nil, &sim.Error{HTTPCode: http.StatusUnprocessableEntity, Status: "Invalid", KubeReason: "Invalid",
				Message: fmt.Sprintf("Node %q is invalid: %s: Forbidden: gkesim nodes take their labels, annotations and taints from the node pool: change config.labels or config.taints of node pool %s instead",
					cur.Name, f.field, cur.Labels["cloud.google.com/gke-nodepool"])}
		}
	}
	if want.Spec.Unschedulable == cur.Spec.Unschedulable {
		return cur, nil
	}
	return w.SetNodeUnschedulable(cl, cur.Name, want.Spec.Unschedulable)
}
