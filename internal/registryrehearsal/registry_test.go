package registryrehearsal

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeRelease lays out a release of terraform-provider-gkesim VERSION in dir as goreleaser
// does, with a zip per platform, and gives each zip's bytes by platform.
func writeRelease(t *testing.T, dir, version string, platforms ...string) map[string][]byte {
	t.Helper()
	name := "terraform-provider-gkesim_" + version
	zips := map[string][]byte{}
	var sums strings.Builder
	for _, p := range platforms {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		w, err := zw.Create("terraform-provider-gkesim_v" + version)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(w, "the provider for %s", p)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		file := name + "_" + p + ".zip"
		writeFile(t, filepath.Join(dir, file), buf.String())
		sum := sha256.Sum256(buf.Bytes())
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(sum[:]), file)
		zips[p] = buf.Bytes()
	}
	// The emulator's archives share the checksum file; the registry leaves them out.
	fmt.Fprintf(&sums, "%s  gkesim_%s_linux_amd64.tar.gz\n", strings.Repeat("0", 64), version)
	writeFile(t, filepath.Join(dir, name+"_SHA256SUMS"), sums.String())
	writeFile(t, filepath.Join(dir, name+"_SHA256SUMS.sig"), "the detached signature")
	writeFile(t, filepath.Join(dir, name+"_manifest.json"), `{"version": 1, "metadata": {"protocol_versions": ["6.0"]}}`)
	writeFile(t, filepath.Join(dir, SigningKeyFile), "-----BEGIN PGP PUBLIC KEY BLOCK-----\n...\n")
	writeFile(t, filepath.Join(dir, SigningKeyIDFile), "0123456789ABCDEF\n")
	return zips
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// serveTLS runs the registry behind LoopbackTLS and gives a client that trusts the run's CA
// alone, as Terraform does with SSL_CERT_FILE, and the base URL with the host name localhost.
func serveTLS(t *testing.T, reg *Registry) (*http.Client, string) {
	t.Helper()
	cfg, caPEM, err := LoopbackTLS()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(reg)
	srv.TLS = cfg
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		t.Fatal("the CA's PEM holds no certificate")
	}
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	return client, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
}

func get(t *testing.T, client *http.Client, url string, want int) []byte {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != want {
		t.Fatalf("GET %s: %d %s, want %d", url, resp.StatusCode, body, want)
	}
	return body
}

func TestRegistryProtocol(t *testing.T) {
	dir := t.TempDir()
	zips := writeRelease(t, dir, "0.1.0", "linux_amd64", "darwin_arm64")
	reg, err := New(map[string]string{"gkesim": dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	client, base := serveTLS(t, reg)

	var disco map[string]string
	mustUnmarshal(t, get(t, client, base+"/.well-known/terraform.json", 200), &disco)
	if disco["providers.v1"] != "/v1/providers/" {
		t.Fatalf("service discovery: %v, want providers.v1 at /v1/providers/", disco)
	}

	var versions struct {
		Versions []struct {
			Version   string
			Protocols []string
			Platforms []struct{ OS, Arch string }
		}
	}
	mustUnmarshal(t, get(t, client, base+"/v1/providers/gkesim/gkesim/versions", 200), &versions)
	if len(versions.Versions) != 1 {
		t.Fatalf("versions: %+v, want the one release", versions)
	}
	v := versions.Versions[0]
	if v.Version != "0.1.0" || !slices.Equal(v.Protocols, []string{"6.0"}) || len(v.Platforms) != 2 ||
		v.Platforms[0].OS != "darwin" || v.Platforms[0].Arch != "arm64" || v.Platforms[1].OS != "linux" {
		t.Fatalf("versions: %+v, want 0.1.0, protocol 6.0, darwin_arm64 and linux_amd64 (not the emulator's archive)", v)
	}

	var d Download
	mustUnmarshal(t, get(t, client, base+"/v1/providers/gkesim/gkesim/0.1.0/download/linux/amd64", 200), &d)
	files := base + "/files/gkesim/"
	if d.OS != "linux" || d.Arch != "amd64" || d.Filename != "terraform-provider-gkesim_0.1.0_linux_amd64.zip" ||
		d.DownloadURL != files+d.Filename || d.SHASumsURL != files+"terraform-provider-gkesim_0.1.0_SHA256SUMS" ||
		d.SHASumsSignatureURL != d.SHASumsURL+".sig" || !slices.Equal(d.Protocols, []string{"6.0"}) {
		t.Fatalf("download: %+v", d)
	}
	if keys := d.SigningKeys.GPGPublicKeys; len(keys) != 1 || keys[0].KeyID != "0123456789ABCDEF" || !strings.HasPrefix(keys[0].ASCIIArmor, "-----BEGIN PGP PUBLIC KEY BLOCK-----") {
		t.Fatalf("signing keys: %+v, want the namespace's key", d.SigningKeys)
	}
	// The zip, the checksums and the signature are served as they are, and shasum is the zip's.
	zipBytes := get(t, client, d.DownloadURL, 200)
	sum := sha256.Sum256(zipBytes)
	if !bytes.Equal(zipBytes, zips["linux_amd64"]) || d.SHASum != hex.EncodeToString(sum[:]) {
		t.Fatalf("the zip served (%d bytes) or its shasum %s is not the release's", len(zipBytes), d.SHASum)
	}
	if sums := get(t, client, d.SHASumsURL, 200); !bytes.Contains(sums, []byte(d.SHASum+"  "+d.Filename)) {
		t.Fatalf("the checksums served do not name the zip: %s", sums)
	}
	if sig := get(t, client, d.SHASumsSignatureURL, 200); string(sig) != "the detached signature" {
		t.Fatalf("the signature served: %q", sig)
	}
}

func TestRegistryNotFound(t *testing.T) {
	dir := t.TempDir()
	writeRelease(t, dir, "0.1.0", "linux_amd64")
	writeFile(t, filepath.Join(t.TempDir(), "outside"), "not served")
	reg, err := New(map[string]string{"gkesim": dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	client, base := serveTLS(t, reg)
	for _, tc := range []struct {
		path, says string
	}{
		{"/v1/providers/other/gkesim/versions", "provider other/gkesim is not served here"},
		{"/v1/providers/gkesim/gkesim/0.2.0/download/linux/amd64", "gkesim/gkesim has no version 0.2.0"},
		{"/v1/providers/gkesim/gkesim/0.1.0/download/windows/386", "has no package for windows_386 (it has linux_amd64)"},
		{"/files/other/terraform-provider-gkesim_0.1.0_SHA256SUMS", ""},
		{"/files/gkesim/..%2Foutside", ""},
		{"/files/gkesim/", ""},
	} {
		body := get(t, client, base+tc.path, http.StatusNotFound)
		if !strings.Contains(string(body), tc.says) {
			t.Errorf("GET %s: %s, want it to say %q", tc.path, body, tc.says)
		}
	}
}

func TestLoadNamespaceSaysWhatIsMissing(t *testing.T) {
	for _, tc := range []struct {
		name, remove, says string
	}{
		{"no key", SigningKeyFile, "gpg --armor --export"},
		{"no signature", "terraform-provider-gkesim_0.1.0_SHA256SUMS.sig", "sign it"},
		{"no manifest", "terraform-provider-gkesim_0.1.0_manifest.json", "terraform-registry-manifest.json"},
		{"a zip missing", "terraform-provider-gkesim_0.1.0_linux_arm64.zip", "names terraform-provider-gkesim_0.1.0_linux_arm64.zip"},
		{"no checksums", "terraform-provider-gkesim_0.1.0_SHA256SUMS", "copy a release there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeRelease(t, dir, "0.1.0", "linux_amd64", "linux_arm64")
			if err := os.Remove(filepath.Join(dir, tc.remove)); err != nil {
				t.Fatal(err)
			}
			_, err := LoadNamespace(dir)
			if err == nil || !strings.Contains(err.Error(), tc.says) {
				t.Fatalf("LoadNamespace without %s: %v, want it to say %q", tc.remove, err, tc.says)
			}
		})
	}
}

func TestCheckPlatforms(t *testing.T) {
	write := func(t *testing.T, sums string) string {
		dist := t.TempDir()
		writeFile(t, filepath.Join(dist, "metadata.json"), `{"project_name": "terraform-provider-gkesim", "version": "0.1.0"}`)
		writeFile(t, filepath.Join(dist, "artifacts.json"), `[
			{"type": "Binary", "goos": "linux", "goarch": "amd64", "extra": {"ID": "provider"}},
			{"type": "Binary", "goos": "windows", "goarch": "386", "extra": {"ID": "provider"}},
			{"type": "Binary", "goos": "darwin", "goarch": "arm64", "extra": {"ID": "gkesim"}},
			{"type": "Archive", "goos": "linux", "goarch": "amd64", "extra": {"ID": "provider"}}]`)
		writeFile(t, filepath.Join(dist, "terraform-provider-gkesim_0.1.0_SHA256SUMS"), sums)
		return dist
	}
	all := "a  terraform-provider-gkesim_0.1.0_linux_amd64.zip\nb  terraform-provider-gkesim_0.1.0_windows_386.zip\nc  terraform-provider-gkesim_0.1.0_manifest.json\n"
	got, err := CheckPlatforms(write(t, all), "provider")
	if err != nil || !slices.Equal(got, []string{"linux_amd64", "windows_386"}) {
		t.Fatalf("CheckPlatforms: %v, %v; want linux_amd64 and windows_386 (the provider's builds)", got, err)
	}
	_, err = CheckPlatforms(write(t, "a  terraform-provider-gkesim_0.1.0_linux_amd64.zip\n"), "provider")
	if err == nil || !strings.Contains(err.Error(), "does not name terraform-provider-gkesim_0.1.0_windows_386.zip, terraform-provider-gkesim_0.1.0_manifest.json") {
		t.Fatalf("CheckPlatforms with a zip and the manifest missing: %v", err)
	}
	if _, err := CheckPlatforms(write(t, all), "provder"); err == nil || !strings.Contains(err.Error(), `no binary of build "provder"`) {
		t.Fatalf("CheckPlatforms of an unknown build: %v", err)
	}
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}
