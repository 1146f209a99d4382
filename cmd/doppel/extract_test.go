package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtract: doppel extract prints a document's title and text, says
// which files it could not read (and why) and exits 1 when any failed,
// reading the others all the same.
func TestExtract(t *testing.T) {
	pdf := "../../crawler/extract/testdata/docs/apa.en.pdf"
	code, out, errOut := doppel(t, "extract", pdf)
	if code != 0 || !strings.HasPrefix(out, "Appendix A. Appendix\n") || !strings.Contains(out, "The Debian maze") {
		t.Fatalf("extract %s: %d, %q…, %s", pdf, code, out[:min(len(out), 80)], errOut)
	}
	broken := writeFile(t, "broken.pdf", "%PDF-1.4 not really")
	code, out, errOut = doppel(t, "extract", "--json", broken, pdf)
	if code != 1 || !strings.Contains(errOut, "broken.pdf: pdf: malformed") {
		t.Fatalf("extract of a broken and a good file: %d, %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var first, second map[string]any
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &first) != nil || json.Unmarshal([]byte(lines[1]), &second) != nil {
		t.Fatalf("--json output: %q", out)
	}
	if first["error"] == nil || second["type"] != "pdf" || second["title"] != "Appendix A. Appendix" || second["pages"] != 3.0 {
		t.Errorf("--json lines: %v / %v", first, second)
	}
	if code, _, _ := doppel(t, "extract"); code != 2 {
		t.Errorf("extract without a file: exit %d, want 2 (usage)", code)
	}
}

// TestDedupFolder: doppel dedup reads a folder of files — a page and its
// PDF, DOCX and ODT versions, a text note, a file of another kind — and
// puts the versions in the page's cluster; the other kind is reported
// and left out.
func TestDedupFolder(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"apa.en.html", "apa.en.pdf", "apa.en.docx", "apa.en.odt"} {
		b, err := os.ReadFile("../../crawler/extract/testdata/docs/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"notes/todo.txt": "Order new chairs for the meeting room before the end of the month.", "logo.png": "\x89PNG"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "clusters.jsonl")
	code, _, errOut := doppel(t, "dedup", "--in", dir, "--out", out, "--quiet")
	if code != 0 || !strings.Contains(errOut, "skipped logo.png") {
		t.Fatalf("dedup of a folder: exit %d, %s", code, errOut)
	}
	cluster := map[string]string{}
	for _, l := range readLines(t, out) {
		cluster[l["id"].(string)] = l["cluster"].(string)
	}
	if len(cluster) != 5 {
		t.Fatalf("%d documents clustered, want 5 (the png left out): %v", len(cluster), cluster)
	}
	for _, name := range []string{"apa.en.pdf", "apa.en.docx", "apa.en.odt"} {
		if cluster[name] != cluster["apa.en.html"] {
			t.Errorf("%s in cluster %s, the page in %s", name, cluster[name], cluster["apa.en.html"])
		}
	}
	if cluster["notes/todo.txt"] == cluster["apa.en.html"] {
		t.Error("the note joined the appendix")
	}
}
