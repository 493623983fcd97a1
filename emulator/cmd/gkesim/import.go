package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/gkesim/terraform-provider-gkesim/emulator/api"
)

// `gkesim import`: recreate a real GKE cluster in a running emulator from what gcloud and
// kubectl print of it.

// importedKinds are the kinds the import reads; of every other object only its kind and name
// are sent (a Secret's data never leaves the machine, nor is it kept in the emulator's journal).
var importedKinds = map[string]bool{"Node": true, "Pod": true, "Namespace": true, "Deployment": true, "ReplicaSet": true,
	"StatefulSet": true, "DaemonSet": true, "PodDisruptionBudget": true, "Service": true}

// snapshotFiles are the files a snapshot is read from.
type snapshotFiles struct {
	cluster      string
	objects      []string
	snapshotTime string
}

func (f *snapshotFiles) given() bool { return f.cluster != "" || len(f.objects) > 0 }

// request reads the files into an import request, the objects of several files merged into
// one List and cut down to what the import reads.
func (f *snapshotFiles) request() (*api.ImportClusterRequest, error) {
	if f.cluster == "" || len(f.objects) == 0 {
		return nil, errors.New("give both --cluster-json (`gcloud container clusters describe CLUSTER --location LOCATION --format json`) " +
			"and --objects-json (`kubectl get nodes,pods,deployments,replicasets,statefulsets,daemonsets,pdb,services -A -o json`)")
	}
	cj, err := readInput(f.cluster)
	if err != nil {
		return nil, err
	}
	var docs [][]byte
	for _, name := range f.objects {
		b, err := readInput(name)
		if err != nil {
			return nil, err
		}
		docs = append(docs, b)
	}
	objects, err := compactObjects(docs)
	if err != nil {
		return nil, err
	}
	return &api.ImportClusterRequest{Cluster: cj, Objects: objects, SnapshotTime: f.snapshotTime}, nil
}

func readInput(name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(os.Stdin)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return b, nil
}

// compactObjects merges kubectl documents into one List and drops what the import does not
// read: every field of objects of other kinds but their kind and name (their data included), and
// the managed fields and last-applied configurations of the others.
func compactObjects(docs [][]byte) (json.RawMessage, error) {
	var items []json.RawMessage
	var flatten func(doc []byte, kind string) error
	flatten = func(doc []byte, kind string) error {
		doc = bytes.TrimSpace(doc)
		if len(doc) > 0 && doc[0] == '[' {
			var list []json.RawMessage
			if err := json.Unmarshal(doc, &list); err != nil {
				return err
			}
			for _, d := range list {
				if err := flatten(d, ""); err != nil {
					return err
				}
			}
			return nil
		}
		var l struct {
			Kind  string            `json:"kind"`
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(doc, &l); err != nil {
			return err
		}
		if l.Items == nil && !strings.HasSuffix(l.Kind, "List") {
			it, err := compactItem(doc, kind)
			if err != nil {
				return err
			}
			items = append(items, it)
			return nil
		}
		for _, it := range l.Items {
			if err := flatten(it, strings.TrimSuffix(l.Kind, "List")); err != nil {
				return err
			}
		}
		return nil
	}
	for i, d := range docs {
		if err := flatten(d, ""); err != nil {
			return nil, fmt.Errorf("objects file %d is not kubectl's JSON output: %w", i+1, err)
		}
	}
	return json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
}

// compactItem cuts one object down to what the import reads.
func compactItem(doc []byte, listKind string) (json.RawMessage, error) {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace,omitempty"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return nil, err
	}
	if head.Kind == "" {
		head.Kind = listKind
	}
	if !importedKinds[head.Kind] {
		return json.Marshal(head)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(doc, &obj); err != nil {
		return nil, err
	}
	var md map[string]json.RawMessage
	if err := json.Unmarshal(obj["metadata"], &md); err == nil {
		delete(md, "managedFields")
		var ann map[string]string
		if json.Unmarshal(md["annotations"], &ann) == nil && ann != nil {
			delete(ann, "kubectl.kubernetes.io/last-applied-configuration")
			md["annotations"], _ = json.Marshal(ann)
		}
		obj["metadata"], _ = json.Marshal(md)
	}
	if _, ok := obj["kind"]; !ok {
		obj["kind"], _ = json.Marshal(head.Kind)
	}
	return json.Marshal(obj)
}

// callRaw sends a JSON body as it is and decodes the answer into out.
func (c *client) callRaw(method, path string, body []byte, out any) error {
	req, err := http.NewRequest(method, c.base+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return c.unreachable(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var eb api.ErrorBody
		if json.Unmarshal(b, &eb) == nil && eb.Error != nil {
			return fmt.Errorf("(%s) %s", eb.Error.Status, eb.Error.Message)
		}
		return fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(b)))
	}
	return json.Unmarshal(b, out)
}

func newImportCmd(g *globals) *cobra.Command {
	var files snapshotFiles
	var location string
	cmd := &cobra.Command{
		Use:   "import --cluster-json FILE --objects-json FILE",
		Short: "Recreate a real GKE cluster in the emulator from what gcloud and kubectl print of it",
		Long: `Recreate a real GKE cluster, its node pools, nodes and workloads in a running emulator from
  gcloud container clusters describe CLUSTER --location LOCATION --format json > cluster.json
  kubectl get nodes,pods,deployments,replicasets,statefulsets,daemonsets,pdb,services -A -o json > objects.json
and print what was imported, and how what the emulator does not simulate as GKE does was
approximated. Objects of other kinds are sent by kind and name only: a Secret's data is
never read. Rehearse an upgrade of it with gkesim rehearse upgrade.`,
		Example: `  gkesim import --cluster-json cluster.json --objects-json objects.json
  gkesim import --cluster-json cluster.json --objects-json nodes.json --objects-json pods.json --project my-project`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			req, err := files.request()
			if err != nil {
				return err
			}
			var head struct {
				Location, Zone, SelfLink string
			}
			_ = json.Unmarshal(req.Cluster, &head)
			project := g.project
			if project == "" {
				if _, rest, ok := strings.Cut(head.SelfLink, "/projects/"); ok {
					project, _, _ = strings.Cut(rest, "/")
				}
			}
			if project == "" {
				return errors.New("no project: pass --project or set GKESIM_PROJECT (the cluster JSON's selfLink names none)")
			}
			loc := location
			if loc == "" {
				loc = head.Location
			}
			if loc == "" {
				loc = head.Zone
			}
			if loc == "" {
				return errors.New("no location: pass --location (the cluster JSON names none)")
			}
			body, err := json.Marshal(req)
			if err != nil {
				return err
			}
			var sum api.ImportSummary
			if err := g.client().callRaw("POST", "/emulator/v1/projects/"+project+"/locations/"+loc+"/clusters:import", body, &sum); err != nil {
				return err
			}
			if g.format == "json" || g.format == "yaml" {
				return g.print(&sum)
			}
			writeImportSummary(g.out, &sum)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&files.cluster, "cluster-json", "", "the cluster as `gcloud container clusters describe --format json` prints it (- for stdin)")
	f.StringArrayVar(&files.objects, "objects-json", nil, "its objects as `kubectl get ... -A -o json` prints them (repeat for several files)")
	f.StringVar(&files.snapshotTime, "snapshot-time", "", "when the snapshot was taken, RFC 3339 (default: the newest time in it)")
	f.StringVar(&location, "location", "", "the location to import the cluster into (default: the cluster's own)")
	return cmd
}

// writeImportSummary prints what an import did.
func writeImportSummary(out io.Writer, s *api.ImportSummary) {
	var parts []string
	for _, c := range s.Imported {
		parts = append(parts, fmt.Sprintf("%d %s", c.Count, c.Kind))
	}
	fmt.Fprintf(out, "Imported %s\n  from a snapshot taken %s, at emulated time %s\n  %s\n", s.Cluster, s.SnapshotTime, s.ImportTime, strings.Join(parts, ", "))
	for _, sec := range []struct {
		title string
		notes []*api.ImportNote
	}{{"Approximations", s.Approximations}, {"Not simulated", s.NotSimulated}, {"Warnings", s.Warnings}} {
		if len(sec.notes) == 0 {
			continue
		}
		fmt.Fprintf(out, "\n%s:\n", sec.title)
		for _, n := range sec.notes {
			fmt.Fprintf(out, "  - %s", n.Note)
			if len(n.Objects) > 0 {
				fmt.Fprintf(out, ": %s", strings.Join(n.Objects, ", "))
				if n.Count > len(n.Objects) {
					fmt.Fprintf(out, " and %d more", n.Count-len(n.Objects))
				}
			}
			fmt.Fprintln(out)
		}
	}
}
