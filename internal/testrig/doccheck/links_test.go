package doccheck

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/doppel-search/doppel/crawler"
)

// TestLinks: every relative link of the README and docs/ leads to a file
// or folder of the repository, and every #anchor to a heading of the page
// it names (as GitHub spells a heading's anchor).
func TestLinks(t *testing.T) {
	dir := root(t)
	var pages []string
	pages = append(pages, filepath.Join(dir, "README.md"))
	err := filepath.WalkDir(filepath.Join(dir, "docs"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			pages = append(pages, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{} // page → its anchors
	anchorsOf := func(page string) (map[string]bool, error) {
		if a, ok := anchors[page]; ok {
			return a, nil
		}
		data, err := os.ReadFile(page)
		if err != nil {
			return nil, err
		}
		anchors[page] = headingAnchors(string(data))
		return anchors[page], nil
	}
	links := 0
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, page)
		for _, target := range markdownLinks(string(data)) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			path, anchor, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), path)
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s: link %q: no such file or folder", rel, target)
					continue
				}
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			a, err := anchorsOf(file)
			if err != nil {
				t.Fatal(err)
			}
			if !a[anchor] {
				t.Errorf("%s: link %q: no heading with that anchor", rel, target)
			}
		}
	}
	if links < 20 {
		t.Errorf("only %d relative links found in %d pages: is the link pattern still right?", links, len(pages))
	}
}

// markdownLinks returns the targets of the inline links of a Markdown
// text, outside code blocks and code spans.
func markdownLinks(md string) []string {
	var out []string
	for _, line := range prose(md) {
		line = regexp.MustCompile("`[^`]*`").ReplaceAllString(line, "")
		for _, m := range linkPattern.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// prose returns the lines of a Markdown text outside its fenced code
// blocks.
func prose(md string) []string {
	var out []string
	inBlock := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inBlock = !inBlock
			continue
		}
		if !inBlock {
			out = append(out, line)
		}
	}
	return out
}

var htmlAnchor = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)

var linkPattern = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// headingAnchors returns the anchors of a Markdown text: those GitHub
// gives its headings (lower case, punctuation other than '-' and '_'
// dropped, spaces as '-', a repeated anchor numbered from -1) and those
// of its <a id="…"> elements.
func headingAnchors(md string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, line := range prose(md) {
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		if !strings.HasPrefix(line, "#") {
			continue
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(text) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out[fmt.Sprintf("%s-%d", a, n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestHeadingAnchors checks the anchor spelling on headings whose GitHub
// anchors are known.
func TestHeadingAnchors(t *testing.T) {
	got := headingAnchors("# Doppel\n## Behind single sign-on: who the user is\n## Workers on Redis Cluster ([7/7])\n```\n# not a heading\n```\n## Doppel\n### `doppel report`\n<a id=\"documents\"></a>**Documents.**\n")
	for _, want := range []string{"doppel", "behind-single-sign-on-who-the-user-is", "workers-on-redis-cluster-77", "doppel-1", "doppel-report", "documents"} {
		if !got[want] {
			t.Errorf("anchor %q missing from %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a line in a code block taken for a heading")
	}
}

// TestConfigExample: the complete config file in docs/commands.md is
// crawler.ExampleConfig, the one `doppel crawl -h` prints.
func TestConfigExample(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(root(t), "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	const intro = "The complete example (`doppel crawl -h` prints it):\n\n```json\n"
	_, rest, ok := strings.Cut(string(data), intro)
	block, _, closed := strings.Cut(rest, "\n```")
	if !ok || !closed {
		t.Fatalf("docs/commands.md has no closed JSON block after %q", intro)
	}
	if want := strings.Trim(crawler.ExampleConfig, "\n"); block != want {
		t.Errorf("docs/commands.md's config example differs from crawler.ExampleConfig; paste it:\n%s", want)
	}
}
