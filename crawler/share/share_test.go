package share_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/crawler/share"
	"github.com/doppel-search/doppel/internal/testrig/sambatest"
)

// TestTransport: against Samba on loopback, a folder is a listing of
// links, a file its bytes with its type, a folder without its final "/"
// a redirect within the share, a missing file 404.
func TestTransport(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "reports"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reports", "q3.txt"), []byte("Quarterly figures"), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := sambatest.Start(t, dir, "files")
	tr := &share.Transport{}
	defer tr.Close()
	client := &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := client.Get("smb://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, body := get("/files/reports/"); resp.StatusCode != 200 || !strings.Contains(body, `href="q3.txt"`) {
		t.Errorf("listing: %d %q", resp.StatusCode, body)
	}
	if resp, body := get("/files/reports/q3.txt"); resp.StatusCode != 200 || body != "Quarterly figures" ||
		!strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Errorf("file: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if resp, _ := get("/files/reports"); resp.StatusCode != http.StatusMovedPermanently || resp.Header.Get("Location") != "reports/" {
		t.Errorf("folder without its slash: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	if resp, _ := get("/files/missing.pdf"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("missing file: %d", resp.StatusCode)
	}
	if _, err := client.Get("smb://" + addr + "/nosuchshare/x"); err == nil {
		t.Error("a share that does not exist gave no error")
	}
}
