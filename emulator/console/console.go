// Package console is the emulator's web console: plain JavaScript modules, CSS and SVG served
// from the binary at /ui/ (go:embed), with no build step, no CDN and no network at run time.
// The page talks to the emulator's own API from the same origin: the aggregate views under
// /emulator/v1, the GKE API and the event stream.
package console

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed web
var files embed.FS

// Files are the console's files, index.html at the root.
func Files() fs.FS {
	sub, err := fs.Sub(files, "web")
	if err != nil {
		panic(err) // the embedded tree always has web/
	}
	return sub
}

// Prefix is where the console is served.
const Prefix = "/ui/"

// contentSecurityPolicy keeps the page to its own files and its own origin: no inline script,
// no other site's scripts, styles, images or connections, no framing.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the console's files under Prefix, GET and HEAD only; Prefix itself is
// index.html (the page routes its views after the '#').
func Handler() http.Handler {
	fsys := Files()
	server := http.FileServerFS(fsys)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// The console is small and changes with the binary: always revalidate.
		h.Set("Cache-Control", "no-cache")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "The console's files are read-only: use GET.", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(path.Clean("/"+strings.TrimPrefix(r.URL.Path, Prefix)), "/")
		if name == "" || name == "." {
			name = "index.html"
		}
		if _, err := fs.Stat(fsys, name); err != nil {
			http.Error(w, "Not found in the console: "+name, http.StatusNotFound)
			return
		}
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + name
		if name == "index.html" {
			// FileServer redirects /index.html to /; serve the file itself.
			serveIndex(w, r2, fsys)
			return
		}
		server.ServeHTTP(w, r2)
	})
}

func serveIndex(w http.ResponseWriter, r *http.Request, fsys fs.FS) {
	b, err := fs.ReadFile(fsys, "index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(b)
}
