// Package kubeconfig writes the kubeconfig entry that `gkesim container clusters
// get-credentials` creates for a cluster, the way `gcloud container clusters get-credentials`
// does for GKE: a cluster, a user and a context all named gke_{project}_{location}_{cluster},
// merged into the kubeconfig file, and made the current context.
package kubeconfig

import (
	"fmt"
	"net/url"
	"strings"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Cluster names a GKE cluster and the server address of its Kubernetes-shaped API.
type Cluster struct {
	Project, Location, Name string
	// Server is the URL kubectl talks to, e.g.
	// http://127.0.0.1:8790/k8s/projects/p/locations/l/clusters/c.
	Server string
	// Token is the emulator's auth token ("" when it runs without one); kubectl sends it as a
	// bearer token, over TLS only.
	Token string
	// CAData is the PEM certificate the server's TLS certificate is checked against (the
	// cluster's masterAuth.clusterCaCertificate, decoded).
	CAData []byte
}

// ContextName is gcloud's name for a cluster's kubeconfig entries.
func ContextName(project, location, cluster string) string {
	return "gke_" + project + "_" + location + "_" + cluster
}

// ServerURL is the URL of a cluster's endpoint, which GKE gives as a bare host[/path]: https
// when the cluster gives a CA (an emulator that requires a token also serves TLS, as kubectl
// sends a token only over TLS), else the scheme of the emulator's address (plain HTTP unless
// it is put behind TLS).
func ServerURL(emulatorURL, endpoint string, hasCA bool) (string, error) {
	if endpoint == "" {
		return "", fmt.Errorf("the cluster has no endpoint yet: wait until its status is RUNNING")
	}
	scheme := "http"
	if u, err := url.Parse(emulatorURL); err == nil && u.Scheme != "" {
		scheme = u.Scheme
	}
	if hasCA {
		scheme = "https"
	}
	return scheme + "://" + strings.TrimLeft(endpoint, "/"), nil
}

// Write merges the entries of c into the kubeconfig at path and makes its context current.
// An empty path means the file `kubectl config` would write: the one named by $KUBECONFIG (of
// several, the first that exists), else ~/.kube/config. Other entries are kept. It returns the
// file it wrote.
func Write(path string, c Cluster) (string, error) {
	opts := clientcmd.NewDefaultPathOptions()
	if path != "" {
		opts.LoadingRules.ExplicitPath = path
	}
	cfg, err := opts.GetStartingConfig()
	if err != nil {
		return "", fmt.Errorf("read kubeconfig: %w", err)
	}
	name := ContextName(c.Project, c.Location, c.Name)
	// Without an auth token the user entry stays empty, as a kubeconfig for a local cluster
	// without auth would; with one, kubectl sends it as a bearer token.
	cfg.Clusters[name] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthorityData: c.CAData}
	cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Token: c.Token}
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: name}
	cfg.CurrentContext = name
	if err := clientcmd.ModifyConfig(opts, *cfg, false); err != nil {
		return "", fmt.Errorf("write kubeconfig: %w", err)
	}
	return opts.GetDefaultFilename(), nil
}
