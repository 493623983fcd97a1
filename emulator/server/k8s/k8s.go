// Package k8s is the Kubernetes API server of every emulated cluster, as HTTP: the routes under
// a cluster's endpoint, /k8s/projects/{p}/locations/{l}/clusters/{c}, that kubectl, client-go
// and this project's provider (its workload resources) call. It decodes requests as the API server does (JSON or
// protobuf, fieldValidation, the four patch types and server-side apply with field ownership),
// calls the simulation through its runner, and answers in Kubernetes JSON, as a Table for
// kubectl get (table.go), or as a watch stream of the cluster's change feed (watch.go); the
// discovery documents kubectl reads first are in discovery.go.
//
// The objects themselves, their validation and the change feeds are the simulation's
// (emulator/sim; its sim/kubeapi package is the API server's create/get/list/update/delete):
// this package is only the HTTP side, named after the /k8s/ prefix it serves. emulator/server
// mounts it (Server.Routes) beside the GKE API, behind its guard, authentication and journal,
// and renders the errors it returns (a Kubernetes Status on /k8s/ paths); the helpers both
// share, such as writing JSON and the request's base URL, are in server/internal/httpio.
package k8s

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"slices"
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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/protobuf"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
	kjson "sigs.k8s.io/json"

	"github.com/gkesim/terraform-provider-gkesim/emulator/server/internal/httpio"
	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Server serves the Kubernetes-shaped API of every cluster. It is safe for concurrent use.
type Server struct {
	runner *sim.Runner
	// inspect, when set (by tests), sees every answer on the simulation goroutine, before the
	// answer leaves it.
	inspect func(w *sim.World, out any)
	// watches counts each cluster's open watches (watch.go).
	watches watchLimits
	// fields are the field managers of the kinds the API stores (fields.go).
	fields fieldManagers
}

// Options configure a Server.
type Options struct {
	// MaxWatchesPerCluster bounds the watches a cluster serves at once (0:
	// DefaultMaxWatchesPerCluster).
	MaxWatchesPerCluster int
	// Inspect, when set (by tests), sees every answer on the simulation goroutine, before the
	// answer leaves it.
	Inspect func(w *sim.World, out any)
}

// New makes the Kubernetes API of the clusters of a running simulation. The caller mounts it
// with Routes, runs FollowFeed on every request, and tells the simulation who follows its
// change feeds with Followed (sim.Runner.SetFeedFollowed).
func New(runner *sim.Runner, opts Options) *Server {
	return &Server{runner: runner, inspect: opts.Inspect, watches: watchLimits{max: opts.MaxWatchesPerCluster}}
}

// Routes mounts the API on g, the group of a cluster's endpoint prefix
// (/k8s/projects/:project/locations/:location/clusters/:cluster): namespaces, nodes, pods (and
// their eviction), Deployments (and their scale), PodDisruptionBudgets, Services
// (services.go), the stored kinds (stored.go), node leases (leases.go) and read-only
// DaemonSets and Events, in Kubernetes JSON or, when kubectl asks for one, as a Table
// (table.go).
func (s *Server) Routes(g *echo.Group) {
	s.k8sDiscoveryRoutes(g)
	s.k8sLeaseRoutes(g)

	getNamespace := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetNamespace(cl, c.Param("ns"))
	}
	createNamespace := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreateNamespace(cl, in.(*corev1.Namespace))
	}
	updateNamespace := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.UpdateNamespace(cl, c.Param("ns"), in.(*corev1.Namespace))
	}
	g.GET("/api/v1/namespaces", s.k8sList("namespaces", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListNamespaces(cl)
	}))
	g.POST("/api/v1/namespaces", s.k8sCreate(&corev1.Namespace{}, createNamespace))
	g.GET("/api/v1/namespaces/:ns", s.k8s(getNamespace))
	g.PUT("/api/v1/namespaces/:ns", s.k8sUpdate(&corev1.Namespace{}, getNamespace, updateNamespace))
	g.PATCH("/api/v1/namespaces/:ns", s.k8sPatch(&corev1.Namespace{}, getNamespace, updateNamespace, createNamespace))
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
	getPod := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetPod(cl, c.Param("ns"), c.Param("name"))
	}
	createPod := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreatePod(cl, c.Param("ns"), in.(*corev1.Pod))
	}
	updatePod := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.UpdatePod(cl, c.Param("ns"), c.Param("name"), in.(*corev1.Pod))
	}
	g.GET("/api/v1/pods", listPods)
	g.GET(pods(""), listPods)
	g.POST(pods(""), s.k8sCreate(&corev1.Pod{}, createPod))
	g.GET(pods("/:name"), s.k8s(getPod))
	g.PUT(pods("/:name"), s.k8sUpdate(&corev1.Pod{}, getPod, updatePod))
	g.PATCH(pods("/:name"), s.k8sPatch(&corev1.Pod{}, getPod, updatePod, createPod))
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
	s.k8sUnsupportedRoutes(g)

	deploy := func(path string) string { return "/apis/apps/v1/namespaces/:ns/deployments" + path }
	listDeployments := s.k8sList("deployments", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListDeployments(cl, o)
	})
	getDeployment := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetDeployment(cl, c.Param("ns"), c.Param("name"))
	}
	createDeployment := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreateDeployment(cl, c.Param("ns"), in.(*appsv1.Deployment))
	}
	updateDeployment := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.UpdateDeployment(cl, c.Param("ns"), c.Param("name"), in.(*appsv1.Deployment))
	}
	g.GET("/apis/apps/v1/deployments", listDeployments)
	g.GET(deploy(""), listDeployments)
	g.POST(deploy(""), s.k8sCreate(&appsv1.Deployment{}, createDeployment))
	g.GET(deploy("/:name"), s.k8s(getDeployment))
	g.PUT(deploy("/:name"), s.k8sUpdate(&appsv1.Deployment{}, getDeployment, updateDeployment))
	g.PATCH(deploy("/:name"), s.k8sPatch(&appsv1.Deployment{}, getDeployment, updateDeployment, createDeployment))
	g.DELETE(deploy("/:name"), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.DeleteDeployment(cl, c.Param("ns"), c.Param("name"))
	}))
	getScale := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetScale(cl, c.Param("ns"), c.Param("name"))
	}
	setScale := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		sc := in.(*autoscalingv1.Scale)
		// The manager that scales owns spec.replicas of the Deployment, through "scale".
		live, err := w.GetDeployment(cl, c.Param("ns"), c.Param("name"))
		if err != nil {
			return nil, err
		}
		scaled := live.DeepCopy()
		scaled.Spec.Replicas = &sc.Spec.Replicas
		obj, err := s.trackFields(c, live, scaled, "scale", w.Now())
		if err != nil {
			return nil, err
		}
		return w.ScaleDeployment(cl, c.Param("ns"), c.Param("name"), sc.Spec.Replicas, sc.ResourceVersion, obj.(*appsv1.Deployment).ManagedFields)
	}
	g.GET(deploy("/:name/scale"), s.k8s(getScale))
	g.PUT(deploy("/:name/scale"), s.k8sBody(&autoscalingv1.Scale{}, setScale))
	g.PATCH(deploy("/:name/scale"), s.k8sPatch(&autoscalingv1.Scale{}, getScale, setScale))

	// ReplicaSets: the Deployments' own, read-only (kubectl rollout history, describe deployment).
	listReplicaSets := s.k8sList("replicasets", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListReplicaSets(cl, o)
	})
	g.GET("/apis/apps/v1/replicasets", listReplicaSets)
	g.GET("/apis/apps/v1/namespaces/:ns/replicasets", listReplicaSets)
	g.GET("/apis/apps/v1/namespaces/:ns/replicasets/:name", s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetReplicaSet(cl, c.Param("ns"), c.Param("name"))
	}))

	pdb := func(path string) string { return "/apis/policy/v1/namespaces/:ns/poddisruptionbudgets" + path }
	listPDBs := s.k8sList("poddisruptionbudgets", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListPDBs(cl, o)
	})
	getPDB := func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.GetPDB(cl, c.Param("ns"), c.Param("name"))
	}
	createPDB := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.CreatePDB(cl, c.Param("ns"), in.(*policyv1.PodDisruptionBudget))
	}
	updatePDB := func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		return w.UpdatePDB(cl, c.Param("ns"), c.Param("name"), in.(*policyv1.PodDisruptionBudget))
	}
	g.GET("/apis/policy/v1/poddisruptionbudgets", listPDBs)
	g.GET(pdb(""), listPDBs)
	g.POST(pdb(""), s.k8sCreate(&policyv1.PodDisruptionBudget{}, createPDB))
	g.GET(pdb("/:name"), s.k8s(getPDB))
	g.PUT(pdb("/:name"), s.k8sUpdate(&policyv1.PodDisruptionBudget{}, getPDB, updatePDB))
	g.PATCH(pdb("/:name"), s.k8sPatch(&policyv1.PodDisruptionBudget{}, getPDB, updatePDB, createPDB))
	g.DELETE(pdb("/:name"), s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
		return w.DeletePDB(cl, c.Param("ns"), c.Param("name"))
	}))

	s.k8sServiceRoutes(g)
	s.k8sStoredRoutes(g)

	// Read-only: GKE's system DaemonSets (kubectl drain looks them up) and the event log as Events.
	listDaemonSets := s.k8sList("daemonsets", func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, _ listFilter) runtime.Object {
		return w.ListDaemonSets(cl, o)
	})
	// Read-only: an imported cluster's StatefulSets, so that kubectl get
	// replicasets,statefulsets works (an export does it).
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

// FollowFeed is a middleware that notes each request to a cluster's Kubernetes API: its change
// feed records while the cluster is followed (Followed).
func (s *Server) FollowFeed(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if strings.HasPrefix(c.Path(), "/k8s/") && c.Param("cluster") != "" {
			s.watches.touch(sim.ClusterKey(c.Param("project"), c.Param("location"), c.Param("cluster")))
		}
		return next(c)
	}
}

// k8sCluster resolves the cluster of a Kubernetes-shaped request.
func k8sCluster(c echo.Context, w *sim.World) (*sim.Cluster, error) {
	cl := w.Cluster(c.Param("project"), c.Param("location"), c.Param("cluster"))
	if cl == nil {
		return nil, httpio.NotFoundf("cluster %q not found in projects/%s/locations/%s", c.Param("cluster"), c.Param("project"), c.Param("location"))
	}
	if !cl.ControlPlaneReady {
		return nil, &sim.Error{HTTPCode: http.StatusServiceUnavailable, Status: "ServiceUnavailable", KubeReason: "ServiceUnavailable",
			Message: fmt.Sprintf("the control plane of cluster %s is not up yet (status %s)", cl.Name, cl.Status)}
	}
	// R-MW-6: a zonal cluster's single control-plane replica serves nothing while it is upgraded.
	// gkesim serves every cluster on one listener, so it cannot refuse the connection as a
	// control plane that is down does; it answers as the API server does when it cannot serve
	// (503 ServiceUnavailable), which clients treat alike: kubectl prints "Error from server
	// (ServiceUnavailable): the server is currently unable to handle the request", watches end.
	if err := w.KubeAPIUnavailable(cl); err != nil {
		return nil, err
	}
	w.FollowFeed(cl) // its watches may start from the version this request sees
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
		var warnings []string
		err = s.runner.Do(c.Request().Context(), func(w *sim.World) error {
			cl, err := k8sCluster(c, w)
			if err != nil {
				return err
			}
			w.TakeWarnings() // none left from a request replayed without a client
			out, err = fn(w, cl, c)
			warnings = w.TakeWarnings()
			now = w.Now()
			if err == nil && s.inspect != nil {
				s.inspect(w, out)
			}
			return err
		})
		if err != nil {
			return err
		}
		for _, msg := range warnings { // admission's warnings, as kubectl prints them
			c.Response().Header().Add("Warning", "299 - "+strconv.Quote(msg))
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
				return httpio.WriteJSON(c, code, t)
			}
		}
		return httpio.WriteJSON(c, code, out)
	}
}

// listFunc builds a list with what the simulation can narrow by (namespace, labels, node; f
// for hints of its own).
type listFunc func(w *sim.World, cl *sim.Cluster, o sim.ListOptions, f listFilter) runtime.Object

// k8sList serves a list, or with watch=true its watch (watch.go): list builds it, then the
// request's selectors filter its items.
func (s *Server) k8sList(resource string, list listFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		f, o, err := parseListFilter(c, resource)
		if err != nil {
			return err
		}
		if w := c.QueryParam("watch"); w == "true" || w == "1" {
			return s.k8sWatch(c, resource, f, o, list)
		}
		exact := c.QueryParam("resourceVersionMatch") == string(metav1.ResourceVersionMatchExact)
		rv := c.QueryParam("resourceVersion")
		return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			if exact && rv != strconv.FormatInt(cl.RV, 10) {
				// gkesim keeps no past states to list from: only the current one.
				n, _ := strconv.ParseInt(rv, 10, 64)
				return nil, sim.ExpiredError(n, cl.RV)
			}
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

// readK8sBody reads a request body of at most httpio.MaxBodyBytes.
func readK8sBody(c echo.Context) ([]byte, error) {
	body, err := io.ReadAll(io.LimitReader(c.Request().Body, httpio.MaxBodyBytes+1))
	if err != nil {
		return nil, kubeBadRequest(fmt.Errorf("could not read the request body: %v", err))
	}
	if len(body) > httpio.MaxBodyBytes {
		return nil, &sim.Error{HTTPCode: http.StatusRequestEntityTooLarge, Status: "RequestEntityTooLarge", KubeReason: "RequestEntityTooLarge",
			Message: fmt.Sprintf("the request body is larger than %d bytes", httpio.MaxBodyBytes)}
	}
	return body, nil
}

// protobufCodec decodes the built-in types from Kubernetes' protobuf encoding.
var protobufCodec = protobuf.NewSerializer(scheme.Scheme, scheme.Scheme)

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
	if ct, _, _ := strings.Cut(c.Request().Header.Get(echo.HeaderContentType), ";"); strings.TrimSpace(ct) == runtime.ContentTypeProtobuf {
		// What kubectl's typed clients send (kubectl create deployment ...): protobuf has no
		// unknown fields to report.
		obj, ok := into.(runtime.Object)
		if !ok {
			return cannot("protobuf is not accepted here")
		}
		if _, _, err := protobufCodec.Decode(body, nil, obj); err != nil {
			return cannot("%v", err)
		}
		return nil
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

// k8sCreate decodes a new object and creates it with create, its managedFields recording the
// request's manager.
func (s *Server) k8sCreate(proto any, create k8sBodyHandler) echo.HandlerFunc {
	return s.k8sBody(proto, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		obj, err := s.trackFields(c, newLike(proto).(runtime.Object), in.(runtime.Object), "", w.Now())
		if err != nil {
			return nil, err
		}
		return create(w, cl, c, obj)
	})
}

// k8sUpdate decodes a replacement of the object get reads and stores it with update (PUT).
func (s *Server) k8sUpdate(proto any, get k8sHandler, update k8sBodyHandler) echo.HandlerFunc {
	return s.k8sBody(proto, func(w *sim.World, cl *sim.Cluster, c echo.Context, in any) (any, error) {
		live, err := get(w, cl, c)
		if err != nil {
			return nil, err
		}
		obj, err := s.trackFields(c, live.(runtime.Object), in.(runtime.Object), "", w.Now())
		if err != nil {
			return nil, err
		}
		return update(w, cl, c, obj)
	})
}

// patchTypes are the patches the API server takes.
const (
	mergePatch     = "application/merge-patch+json"
	strategicPatch = "application/strategic-merge-patch+json"
	jsonPatch      = "application/json-patch+json"
	applyPatch     = "application/apply-patch+yaml"
)

// k8sPatch applies a patch to the current object and stores the result with update: a JSON
// merge patch, a strategic merge patch (what kubectl apply, cordon, label and annotate send;
// lists merge by their patch keys, as on the API server), a JSON patch (kubectl patch --type
// json), or a server-side apply (kubectl apply --server-side, fields.go), which creates the
// object with create when it does not exist (create nil: it must exist).
func (s *Server) k8sPatch(proto any, get k8sHandler, update k8sBodyHandler, create ...k8sBodyHandler) echo.HandlerFunc {
	_, custom := proto.(*unstructured.Unstructured)
	return func(c echo.Context) error {
		ct, _, _ := strings.Cut(c.Request().Header.Get(echo.HeaderContentType), ";")
		accepted := []string{jsonPatch, mergePatch, strategicPatch, applyPatch}
		if custom {
			accepted = []string{jsonPatch, mergePatch, applyPatch} // no patch keys without a Go type
		}
		if ct = strings.TrimSpace(ct); !slices.Contains(accepted, ct) {
			return &sim.Error{HTTPCode: http.StatusUnsupportedMediaType, Status: "UnsupportedMediaType", KubeReason: "UnsupportedMediaType",
				Message: fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %s (got %q)", strings.Join(accepted, ", "), ct)}
		}
		patch, err := readK8sBody(c)
		if err != nil {
			return err
		}
		return s.k8s(func(w *sim.World, cl *sim.Cluster, c echo.Context) (any, error) {
			cur, err := get(w, cl, c)
			if ct == applyPatch {
				var live runtime.Object
				switch e, _ := sim.AsError(err); {
				case err == nil:
					live = cur.(runtime.Object)
				case e != nil && e.HTTPCode == http.StatusNotFound && len(create) > 0:
				default:
					return nil, err
				}
				out, err := s.serverSideApply(c, proto, live, patch, w.Now())
				if err != nil {
					return nil, err
				}
				if live == nil {
					return create[0](w, cl, c, out)
				}
				return update(w, cl, c, out)
			}
			if err != nil {
				return nil, err
			}
			doc, err := json.Marshal(cur)
			if err != nil {
				return nil, err
			}
			var patched []byte
			switch ct {
			case mergePatch:
				patched, err = jsonpatch.MergePatch(doc, patch)
			case strategicPatch:
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
			obj, err := s.trackFields(c, cur.(runtime.Object), in.(runtime.Object), "", w.Now())
			if err != nil {
				return nil, err
			}
			return update(w, cl, c, obj)
		})(c)
	}
}

// newLike allocates a new zero value of proto's type.
func newLike(proto any) any {
	return reflect.New(reflect.TypeOf(proto).Elem()).Interface()
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
