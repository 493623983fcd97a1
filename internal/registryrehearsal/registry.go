// Package registryrehearsal serves provider releases, as goreleaser lays them out, through the
// provider registry protocol, so that `terraform init` and `tofu init` install a release before
// it is published: service discovery at /.well-known/terraform.json, then providers.v1's
// versions and download endpoints (shasums_url, shasums_signature_url, signing_keys) and the
// files themselves. scripts/release-rehearsal.sh (make release-rehearsal) runs it over HTTPS
// on loopback with a certificate made for the run.
//
// The server serves what it is given and checks nothing: Terraform and OpenTofu do the
// checking, which is what the rehearsal tests, with a tampered zip and a signature by another
// key among the releases it serves.
package registryrehearsal

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// SigningKeyFile and SigningKeyIDFile are the files of a namespace's directory that hold the
// public key (ASCII-armored) its releases say they are signed with, and that key's id.
const (
	SigningKeyFile   = "signing-key.asc"
	SigningKeyIDFile = "signing-key.id"
)

// Release is one version of one provider, as goreleaser's checksum and archive sections lay
// it out: NAME_VERSION_SHA256SUMS naming the zips NAME_VERSION_OS_ARCH.zip, its detached
// signature NAME_VERSION_SHA256SUMS.sig, and NAME_VERSION_manifest.json (the registry
// manifest, for the protocol versions), where NAME is terraform-provider-TYPE.
type Release struct {
	Type      string
	Version   string
	Protocols []string
	// Zips maps "os_arch" to the zip's file name and its SHA-256 as SHA256SUMS gives it.
	Zips       map[string]Zip
	SumsFile   string
	SigFile    string
	KeyID      string
	KeyArmored string
}

// Zip is one platform's archive of a release.
type Zip struct {
	OS, Arch, File, SHA256 string
}

// Platforms are the os_arch of the release's zips, sorted.
func (r Release) Platforms() []string {
	out := make([]string, 0, len(r.Zips))
	for p := range r.Zips {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// LoadNamespace reads the releases in dir: one per NAME_VERSION_SHA256SUMS file, with the
// signing key of the directory's SigningKeyFile and SigningKeyIDFile.
func LoadNamespace(dir string) ([]Release, error) {
	armored, err := os.ReadFile(filepath.Join(dir, SigningKeyFile))
	if err != nil {
		return nil, fmt.Errorf("the signing key of %s: %w (write the public key there, armored: gpg --armor --export KEY)", dir, err)
	}
	keyID, err := os.ReadFile(filepath.Join(dir, SigningKeyIDFile))
	if err != nil {
		return nil, fmt.Errorf("the signing key id of %s: %w (write the key's long id there)", dir, err)
	}
	sums, err := filepath.Glob(filepath.Join(dir, "terraform-provider-*_SHA256SUMS"))
	if err != nil {
		return nil, err
	}
	if len(sums) == 0 {
		return nil, fmt.Errorf("%s holds no terraform-provider-NAME_VERSION_SHA256SUMS: copy a release there (goreleaser's dist)", dir)
	}
	var releases []Release
	for _, s := range sums {
		r, err := loadRelease(s)
		if err != nil {
			return nil, err
		}
		r.KeyArmored = string(armored)
		r.KeyID = strings.TrimSpace(string(keyID))
		releases = append(releases, r)
	}
	return releases, nil
}

func loadRelease(sumsPath string) (Release, error) {
	dir, base := filepath.Split(sumsPath)
	nameVersion := strings.TrimSuffix(base, "_SHA256SUMS")
	name, version, ok := strings.Cut(nameVersion, "_")
	if !ok || version == "" {
		return Release{}, fmt.Errorf("%s: the checksum file is not named terraform-provider-NAME_VERSION_SHA256SUMS", sumsPath)
	}
	r := Release{
		Type:     strings.TrimPrefix(name, "terraform-provider-"),
		Version:  version,
		Zips:     map[string]Zip{},
		SumsFile: base,
		SigFile:  base + ".sig",
	}
	if _, err := os.Stat(filepath.Join(dir, r.SigFile)); err != nil {
		return Release{}, fmt.Errorf("the signature of %s: %w (sign it: gpg --detach-sign)", sumsPath, err)
	}
	manifest := filepath.Join(dir, nameVersion+"_manifest.json")
	protocols, err := readManifest(manifest)
	if err != nil {
		return Release{}, err
	}
	r.Protocols = protocols
	f, err := os.Open(sumsPath)
	if err != nil {
		return Release{}, err
	}
	defer f.Close()
	prefix := nameVersion + "_"
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, file, ok := strings.Cut(sc.Text(), "  ")
		if !ok {
			return Release{}, fmt.Errorf("%s: line %q is not \"SHA256  FILE\"", sumsPath, sc.Text())
		}
		platform, isZip := strings.CutSuffix(strings.TrimPrefix(file, prefix), ".zip")
		if !strings.HasPrefix(file, prefix) || !isZip {
			continue // the manifest, or another archive of the release (the emulator's)
		}
		goos, arch, ok := strings.Cut(platform, "_")
		if !ok {
			return Release{}, fmt.Errorf("%s: %s is not named %sOS_ARCH.zip", sumsPath, file, prefix)
		}
		if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
			return Release{}, fmt.Errorf("%s names %s: %w", sumsPath, file, err)
		}
		r.Zips[platform] = Zip{OS: goos, Arch: arch, File: file, SHA256: sum}
	}
	if err := sc.Err(); err != nil {
		return Release{}, fmt.Errorf("read %s: %w", sumsPath, err)
	}
	if len(r.Zips) == 0 {
		return Release{}, fmt.Errorf("%s names no %sOS_ARCH.zip: check the archives' name_template in .goreleaser.yml", sumsPath, prefix)
	}
	return r, nil
}

// readManifest gives the protocol versions of a terraform-registry-manifest.json.
func readManifest(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("the registry manifest: %w (the release's checksum extra_files put terraform-registry-manifest.json there)", err)
	}
	var m struct {
		Version  int `json:"version"`
		Metadata struct {
			ProtocolVersions []string `json:"protocol_versions"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.Version != 1 || len(m.Metadata.ProtocolVersions) == 0 {
		return nil, fmt.Errorf("%s: want version 1 and metadata.protocol_versions (such as [\"6.0\"]), got version %d and %q", path, m.Version, m.Metadata.ProtocolVersions)
	}
	return m.Metadata.ProtocolVersions, nil
}

// Registry serves releases by namespace: the provider NAMESPACE/TYPE of a host is the
// release of TYPE in the namespace's directory.
type Registry struct {
	releases map[string][]Release // by "namespace/type"
	dirs     map[string]string    // namespace -> directory
	logf     func(format string, args ...any)
}

// New serves the namespaces' directories (namespace -> directory, each read by
// LoadNamespace); logf, when set, gets a line per request.
func New(namespaces map[string]string, logf func(string, ...any)) (*Registry, error) {
	reg := &Registry{releases: map[string][]Release{}, dirs: map[string]string{}, logf: logf}
	for ns, dir := range namespaces {
		rs, err := LoadNamespace(dir)
		if err != nil {
			return nil, fmt.Errorf("namespace %s: %w", ns, err)
		}
		for _, r := range rs {
			reg.releases[ns+"/"+r.Type] = append(reg.releases[ns+"/"+r.Type], r)
		}
		reg.dirs[ns] = dir
	}
	return reg, nil
}

const providersPath = "/v1/providers/"

// ServeHTTP answers service discovery, providers.v1 and the files.
func (reg *Registry) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if reg.logf != nil {
		reg.logf("%s %s", r.Method, r.URL.Path)
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "only GET", http.StatusMethodNotAllowed)
		return
	}
	switch {
	case r.URL.Path == "/.well-known/terraform.json":
		writeJSON(w, map[string]string{"providers.v1": providersPath})
	case strings.HasPrefix(r.URL.Path, providersPath):
		reg.providers(w, r, strings.Split(strings.TrimPrefix(r.URL.Path, providersPath), "/"))
	case strings.HasPrefix(r.URL.Path, "/files/"):
		ns, file, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/files/"), "/")
		dir, ok := reg.dirs[ns]
		if !ok || file == "" || strings.Contains(file, "/") || strings.HasPrefix(file, ".") {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, filepath.Join(dir, file))
	default:
		http.NotFound(w, r)
	}
}

// providers answers NAMESPACE/TYPE/versions and NAMESPACE/TYPE/VERSION/download/OS/ARCH.
func (reg *Registry) providers(w http.ResponseWriter, r *http.Request, parts []string) {
	if len(parts) < 3 {
		http.NotFound(w, r)
		return
	}
	ns, typ := parts[0], parts[1]
	releases, ok := reg.releases[ns+"/"+typ]
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("provider %s/%s is not served here", ns, typ))
		return
	}
	switch {
	case len(parts) == 3 && parts[2] == "versions":
		type platform struct {
			OS   string `json:"os"`
			Arch string `json:"arch"`
		}
		type version struct {
			Version   string     `json:"version"`
			Protocols []string   `json:"protocols"`
			Platforms []platform `json:"platforms"`
		}
		out := struct {
			Versions []version `json:"versions"`
		}{}
		for _, rel := range releases {
			v := version{Version: rel.Version, Protocols: rel.Protocols}
			for _, p := range rel.Platforms() {
				z := rel.Zips[p]
				v.Platforms = append(v.Platforms, platform{OS: z.OS, Arch: z.Arch})
			}
			out.Versions = append(out.Versions, v)
		}
		writeJSON(w, out)
	case len(parts) == 6 && parts[3] == "download":
		for _, rel := range releases {
			if rel.Version != parts[2] {
				continue
			}
			z, ok := rel.Zips[parts[4]+"_"+parts[5]]
			if !ok {
				writeError(w, http.StatusNotFound, fmt.Sprintf("%s/%s %s has no package for %s_%s (it has %s)", ns, typ, rel.Version, parts[4], parts[5], strings.Join(rel.Platforms(), ", ")))
				return
			}
			writeJSON(w, download(rel, z, "https://"+r.Host+"/files/"+ns+"/"))
			return
		}
		writeError(w, http.StatusNotFound, fmt.Sprintf("%s/%s has no version %s", ns, typ, parts[2]))
	default:
		http.NotFound(w, r)
	}
}

// Download is the registry's answer for one package: where the zip, the checksums and their
// signature are, the zip's SHA-256, and the key that signed the checksums.
type Download struct {
	Protocols           []string    `json:"protocols"`
	OS                  string      `json:"os"`
	Arch                string      `json:"arch"`
	Filename            string      `json:"filename"`
	DownloadURL         string      `json:"download_url"`
	SHASumsURL          string      `json:"shasums_url"`
	SHASumsSignatureURL string      `json:"shasums_signature_url"`
	SHASum              string      `json:"shasum"`
	SigningKeys         SigningKeys `json:"signing_keys"`
}

// SigningKeys are the keys a package's checksums may be signed with.
type SigningKeys struct {
	GPGPublicKeys []GPGPublicKey `json:"gpg_public_keys"`
}

// GPGPublicKey is one of them, armored.
type GPGPublicKey struct {
	KeyID      string `json:"key_id"`
	ASCIIArmor string `json:"ascii_armor"`
}

func download(rel Release, z Zip, files string) Download {
	return Download{
		Protocols: rel.Protocols, OS: z.OS, Arch: z.Arch, Filename: z.File,
		DownloadURL: files + z.File, SHASumsURL: files + rel.SumsFile, SHASumsSignatureURL: files + rel.SigFile,
		SHASum:      z.SHA256,
		SigningKeys: SigningKeys{GPGPublicKeys: []GPGPublicKey{{KeyID: rel.KeyID, ASCIIArmor: rel.KeyArmored}}},
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
	}
}

// writeError answers as the registry does: {"errors": [...]}.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string][]string{"errors": {msg}})
}
