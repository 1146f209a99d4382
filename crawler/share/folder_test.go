package share_test

import (
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/share"
)

// TestFolders: asked for a path as given (not normalized by a crawl),
// Folders serves what is under its folder, a link inside included, and
// refuses with a reason a path that leaves it by "..", a link to a file
// or folder outside, a link loop and a URL outside every folder.
func TestFolders(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "share")
	for name, text := range map[string]string{"share/a.txt": "inside", "share/sub/b.txt": "inside too", "outside/secret.txt": "secret"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"out.txt": "../outside/secret.txt", "outdir": filepath.Join(root, "outside"),
		"loop": ".", "sub/up": "..", "c1": "c2", "c2": "c1", "in": "sub"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symbolic links cannot be made here: %v", err)
		}
	}
	base := "file://" + filepath.ToSlash(dir)
	for _, follow := range []bool{false, true} {
		f := &share.Folders{Paths: []string{filepath.ToSlash(dir)}, FollowLinksOutside: follow}
		client := &http.Client{Transport: f}
		for _, tc := range []struct {
			url, body, reason string
		}{
			{base + "/a.txt", "inside", ""},
			{base + "/in/b.txt", "inside too", ""},
			{base + "/sub/", `href="b.txt"`, ""},
			{base + "/../outside/secret.txt", "", share.ReasonOutside},
			{base + "/sub/../../outside/secret.txt", "", share.ReasonOutside},
			{base + "/%2e%2e/outside/secret.txt", "", share.ReasonOutside},
			{base + "/..%2foutside%2fsecret.txt", "", share.ReasonOutside},
			{"file://" + filepath.ToSlash(root) + "/outside/secret.txt", "", share.ReasonOutside},
			{base + "2/x.txt", "", share.ReasonOutside},
			{"file://elsewhere.example" + filepath.ToSlash(dir) + "/a.txt", "", "not a file of this machine"},
			{base + "/out.txt", "secret", share.ReasonLinkOutside},
			{base + "/outdir/secret.txt", "secret", share.ReasonLinkOutside},
			{base + "/loop/", "", share.ReasonLinkLoop},
			{base + "/sub/up/", "", share.ReasonLinkLoop},
			{base + "/c1", "", share.ReasonLinkLoop},
		} {
			resp, err := client.Get(tc.url)
			var refused *share.RefusedError
			switch {
			case tc.reason != "" && !(follow && tc.reason == share.ReasonLinkOutside):
				if !errors.As(err, &refused) || refused.Reason != tc.reason {
					t.Errorf("follow=%v %s: %v, want refused: %s", follow, tc.url, err, tc.reason)
				}
				if err == nil {
					resp.Body.Close()
				}
			case err != nil:
				t.Errorf("follow=%v %s: %v", follow, tc.url, err)
			default:
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !strings.Contains(string(b), tc.body) {
					t.Errorf("follow=%v %s: %d %q, want %q", follow, tc.url, resp.StatusCode, b, tc.body)
				}
			}
		}
		if err := f.Close(); err != nil {
			t.Error(err)
		}
	}
}
