package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// fakeAPI is a Kubernetes API with one Deployment whose resourceVersion moves on each time it
// is read while bumps > 0, as if another writer changed it between our GET and PUT.
type fakeAPI struct {
	rv, bumps, puts int
	status          *metav1.Status // answer to every PUT when set
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fail := func(s *metav1.Status) {
		w.WriteHeader(int(s.Code))
		_ = json.NewEncoder(w).Encode(s)
	}
	switch r.Method {
	case http.MethodGet:
		if !strings.HasSuffix(r.URL.Path, "/deployments/web") {
			fail(&metav1.Status{Status: metav1.StatusFailure, Code: 404, Reason: metav1.StatusReasonNotFound, Message: `deployments.apps "other" not found`})
			return
		}
		if f.bumps > 0 {
			f.bumps--
			defer func() { f.rv++ }()
		}
		_ = json.NewEncoder(w).Encode(appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", ResourceVersion: strconv.Itoa(f.rv)}})
	case http.MethodPut:
		f.puts++
		if f.status != nil {
			fail(f.status)
			return
		}
		var d appsv1.Deployment
		_ = json.NewDecoder(r.Body).Decode(&d)
		if d.ResourceVersion != strconv.Itoa(f.rv) {
			fail(&metav1.Status{Status: metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonConflict,
				Message: `Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`})
			return
		}
		f.rv++
		d.ResourceVersion = strconv.Itoa(f.rv)
		_ = json.NewEncoder(w).Encode(d)
	}
}

func testKube(t *testing.T, h http.Handler) *Kube {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := New(context.Background(), Config{Endpoint: srv.URL, RequestTimeout: 5 * time.Second, MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	return c.Kube("p", "l", "c")
}

// A PUT that loses the race to another writer (409 Conflict) reads the object again and retries.
func TestUpdateRetriesConflicts(t *testing.T) {
	api := &fakeAPI{rv: 7, bumps: 2}
	k := testKube(t, api)
	mutations := 0
	out, err := Update(context.Background(), k, DeploymentPath("default", "web"), func(d *appsv1.Deployment) {
		mutations++
		d.Labels = map[string]string{"team": "a"}
	})
	if err != nil {
		t.Fatalf("Update: %v", err)
	}
	if mutations != 3 || api.puts != 3 || out.Labels["team"] != "a" || out.ResourceVersion != "10" {
		t.Errorf("%d mutations, %d PUTs, result %+v; want 3, 3, team=a at resourceVersion 10", mutations, api.puts, out.ObjectMeta)
	}
}

// Other errors are not retried and carry the API server's message verbatim.
func TestKubeErrors(t *testing.T) {
	invalid := &metav1.Status{Status: metav1.StatusFailure, Code: 422, Reason: metav1.StatusReasonInvalid,
		Message: `Deployment.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`}
	api := &fakeAPI{status: invalid}
	k := testKube(t, api)
	_, err := Update(context.Background(), k, DeploymentPath("default", "web"), func(*appsv1.Deployment) {})
	if err == nil || err.Error() != invalid.Message || Message(err) != invalid.Message || IsConflict(err) || api.puts != 1 {
		t.Errorf("Update: %v after %d PUTs; want the 422's message after one PUT", err, api.puts)
	}
	api.status = &metav1.Status{Status: metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonAlreadyExists, Message: `deployments.apps "web" already exists`}
	if _, err := Update(context.Background(), k, DeploymentPath("default", "web"), func(*appsv1.Deployment) {}); IsConflict(err) || err == nil {
		t.Errorf("AlreadyExists: %v; want an error that is not a conflict", err)
	}
	var d appsv1.Deployment
	err = k.Get(context.Background(), DeploymentPath("default", "other"), &d)
	if !IsNotFound(err) || Message(err) != `deployments.apps "other" not found` {
		t.Errorf("Get: %v; want the 404's message", err)
	}
}
