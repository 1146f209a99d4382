package main

import (
	"encoding/json"
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
