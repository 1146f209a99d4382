package share

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

// Reasons a Folders refuses a request with (RefusedError.Reason).
const (
	// ReasonOutside: the URL names no file under the Folders' paths.
	ReasonOutside = "outside the crawl's folders"
	// ReasonLinkOutside: a symbolic link leads out of its folder.
	ReasonLinkOutside = "a symbolic link leads out of the crawl's folder"
	// ReasonLinkLoop: symbolic links lead in a circle, or a folder's
	// link leads back to a folder it is in (a path that never ends).
	ReasonLinkLoop = "a symbolic link loop"
)

// A RefusedError is a request a transport refuses because it would read
// outside the crawl's folders; Reason is what the crawl records.
type RefusedError struct {
	URL, Reason string
}

func (e *RefusedError) Error() string { return "share: " + e.URL + ": " + e.Reason }

// Folders fetches file:// URLs of local folders, as Go's file transport
// does (a folder is a listing of links to its entries, a file its bytes
// with the content type of its extension), but only what is under one of
// Paths once its symbolic links are resolved: each folder is opened as an
// os.Root, which refuses by construction any path that leaves it, by
// ".." or by a link. A URL outside every folder, a symbolic link whose
// target is outside (unless FollowLinksOutside) and a link loop are
// refused with a *RefusedError, whose Reason the crawl records.
//
// The zero value refuses every URL. A Folders is safe for concurrent use;
// its folders stay open until Close.
type Folders struct {
	// Paths are the folders, absolute ("/srv/share"), as the paths of
	// file URLs (slash-separated, decoded). A URL is served by the
	// longest of them it lies under.
	Paths []string
	// FollowLinksOutside follows symbolic links whose targets lie outside
	// their folder: a link to a file is read, a link to a folder crawled
	// as if it were inside. The URLs stay under the folder; ".." and
	// link loops are still refused. Default false: such a link is
	// refused with ReasonLinkOutside.
	FollowLinksOutside bool

	mu    sync.Mutex
	roots map[string]*root
}

// A root is one folder, opened.
type root struct {
	*os.Root
	files http.RoundTripper // serves the folder
}

var _ http.RoundTripper = (*Folders)(nil)

// RoundTrip answers a GET of file:///folder/path: a listing for a folder
// (a redirect to the path with a final "/" first, as a file server does),
// the file's bytes otherwise, 404 for what does not exist; a
// *RefusedError for what lies outside the folders. Cost: a few system
// calls per segment of the path for a folder (the loop check), one
// resolution of links for a file.
func (f *Folders) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Scheme != "file" {
		return nil, fmt.Errorf("share: not a file URL: %s", r.URL)
	}
	if h := r.URL.Host; h != "" && !strings.EqualFold(h, "localhost") {
		return nil, &RefusedError{URL: r.URL.String(), Reason: "not a file of this machine"}
	}
	folder, rel, ok := f.locate(r.URL.Path)
	if !ok {
		return nil, &RefusedError{URL: r.URL.String(), Reason: ReasonOutside}
	}
	rt, err := f.open(folder)
	if err != nil {
		return nil, err
	}
	if reason := f.check(rt, folder, rel); reason != "" {
		return nil, &RefusedError{URL: r.URL.String(), Reason: reason}
	}
	inner := r.Clone(r.Context())
	inner.URL.Scheme, inner.URL.Host, inner.URL.Path, inner.URL.RawPath = "file", "", "/"+rel, ""
	resp, err := rt.files.RoundTrip(inner)
	if err != nil {
		return nil, err
	}
	resp.Request = r
	if loc := resp.Header.Get("Location"); strings.HasPrefix(loc, "/") {
		// The file server's redirects are relative to the folder.
		resp.Header.Set("Location", strings.TrimSuffix(folder, "/")+loc)
	}
	return resp, nil
}

// locate returns the folder of Paths p lies under (the longest) and p
// relative to it. A path with a ".." segment lies under none: a crawl
// asks for normalized URLs only.
func (f *Folders) locate(p string) (folder, rel string, ok bool) {
	if p == "" || p[0] != '/' || strings.Contains(p, "\x00") {
		return "", "", false
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return "", "", false
		}
	}
	for _, dir := range f.Paths {
		d := strings.TrimSuffix(dir, "/")
		switch {
		case len(d) <= len(folder):
		case p == d:
			folder, rel, ok = d, "", true
		case strings.HasPrefix(p, d+"/"):
			folder, rel, ok = d, p[len(d)+1:], true
		}
	}
	return folder, rel, ok
}

// open returns the folder, opened once.
func (f *Folders) open(folder string) (*root, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if rt := f.roots[folder]; rt != nil {
		return rt, nil
	}
	dir := filepath.FromSlash(folder)
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("share: %w", err)
	}
	rt := &root{Root: r, files: http.NewFileTransportFS(r.FS())}
	if f.FollowLinksOutside {
		rt.files = http.NewFileTransport(http.Dir(dir))
	}
	if f.roots == nil {
		f.roots = map[string]*root{}
	}
	f.roots[folder] = rt
	return rt, nil
}

// check returns why rel, a path in the folder rt, may not be read, or ""
// if it may (or does not exist: the file server answers 404).
func (f *Folders) check(rt *root, folder, rel string) string {
	name := strings.TrimSuffix(rel, "/")
	if name == "" {
		return ""
	}
	full := filepath.Join(filepath.FromSlash(folder), filepath.FromSlash(name))
	fi, reason := f.stat(rt, name, full)
	if fi == nil || !fi.IsDir() {
		return reason
	}
	if reachedAgain(folder, name, full) {
		return ReasonLinkLoop
	}
	return ""
}

// stat returns the file name, in the folder rt (full outside it), or
// why it may not be read; it returns neither if it does not exist or
// may be read without looking further.
func (f *Folders) stat(rt *root, name, full string) (fs.FileInfo, string) {
	fi, err := rt.Stat(filepath.FromSlash(name))
	switch {
	case errors.Is(err, syscall.ELOOP):
		return nil, ReasonLinkLoop
	case err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOTDIR)):
		return nil, ""
	case err != nil && !f.FollowLinksOutside:
		// os.Root refuses a path whose links lead out of it ("path
		// escapes from parent").
		return nil, ReasonLinkOutside
	case err != nil:
		if fi, err = os.Stat(full); err != nil {
			if errors.Is(err, syscall.ELOOP) {
				return nil, ReasonLinkLoop
			}
			return nil, ""
		}
	}
	return fi, ""
}

// reachedAgain reports whether the folder name (full outside the
// folder) is a folder reached again below itself, through a link to it
// or to one of the folders it is in: a path that never ends
// (loop/loop/loop/…). A folder whose links cannot be resolved counts.
func reachedAgain(folder, name, full string) bool {
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		return true
	}
	for dir := path.Dir(name); ; dir = path.Dir(dir) {
		up := filepath.FromSlash(folder)
		if dir != "." {
			up = filepath.Join(up, filepath.FromSlash(dir))
		}
		upReal, err := filepath.EvalSymlinks(up)
		if err == nil && (upReal == real || dir == path.Dir(name) && within(real, upReal)) {
			return true
		}
		if dir == "." {
			return false
		}
	}
}

// within reports whether path p is dir or lies under it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// Close closes the folders.
func (f *Folders) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var errs []error
	for k, rt := range f.roots {
		errs = append(errs, rt.Close())
		delete(f.roots, k)
	}
	return errors.Join(errs...)
}
