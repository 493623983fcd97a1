package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
	"github.com/gkesim/terraform-provider-gkesim/emulator/kubeconfig"
)

// newGetCredentialsCmd is `gcloud container clusters get-credentials`: a kubeconfig context
// for the cluster's Kubernetes-shaped endpoint, so that kubectl works against it.
func newGetCredentialsCmd(g *globals) *cobra.Command {
	var w where
	var path string
	cmd := &cobra.Command{
		Use:   "get-credentials NAME",
		Short: "Write a kubeconfig entry (context gke_PROJECT_LOCATION_NAME) for a cluster and make it current",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			loc, err := w.get()
			if err != nil {
				return err
			}
			base, err := g.projectPath(loc)
			if err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "Fetching cluster endpoint and auth data.")
			var c api.Cluster
			if err := g.client().call("GET", base+"/clusters/"+args[0], nil, nil, &c); err != nil {
				return err
			}
			ca, err := clusterCA(&c)
			if err != nil {
				return err
			}
			server, err := kubeconfig.ServerURL(g.endpoint, c.Endpoint, ca != nil)
			if err != nil {
				return fmt.Errorf("cluster %s (status %s): %w", c.Name, c.Status, err)
			}
			if g.token != "" && strings.HasPrefix(server, "http://") {
				fmt.Fprintln(cmd.ErrOrStderr(), "WARNING: kubectl sends the auth token only over TLS, and this endpoint is plain HTTP: "+
					"reach the emulator through an https:// address (a TLS proxy and --advertise-url) for kubectl to authenticate.")
			}
			file, err := kubeconfig.Write(path, kubeconfig.Cluster{Project: g.project, Location: c.Location, Name: c.Name, Server: server,
				Token: g.token, CAData: ca})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "kubeconfig entry generated for %s in %s (context %s).\n",
				c.Name, file, kubeconfig.ContextName(g.project, c.Location, c.Name))
			return nil
		},
	}
	w.flags(cmd.Flags(), "")
	cmd.Flags().StringVar(&path, "kubeconfig", "", "kubeconfig file to write (default: $KUBECONFIG, else ~/.kube/config)")
	return cmd
}

// clusterCA is a cluster's masterAuth.clusterCaCertificate, decoded (nil when it has none).
func clusterCA(c *api.Cluster) ([]byte, error) {
	var auth struct {
		ClusterCaCertificate string `json:"clusterCaCertificate"`
	}
	if raw, ok := c.Extra["masterAuth"]; ok {
		if err := json.Unmarshal(raw, &auth); err != nil {
			return nil, fmt.Errorf("cluster %s: masterAuth: %w", c.Name, err)
		}
	}
	if auth.ClusterCaCertificate == "" {
		return nil, nil
	}
	pem, err := base64.StdEncoding.DecodeString(auth.ClusterCaCertificate)
	if err != nil {
		return nil, fmt.Errorf("cluster %s: masterAuth.clusterCaCertificate is not base64: %w", c.Name, err)
	}
	return pem, nil
}
