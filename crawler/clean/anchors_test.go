package clean

import (
	"fmt"
	"slices"
	"testing"
)

func TestAnchors(t *testing.T) {
	a := NewAnchors(AnchorOptions{Targets: 3})
	for i := range 4 {
		a.Observe("Printer-friendly  version", fmt.Sprintf("/print/%d", i))
		a.Observe("printer-friendly version", fmt.Sprintf("/print/%d", i)) // the same link again
	}
	for range 10 {
		a.Observe("Home", "/") // many links, one page
	}
	for i := range 3 {
		a.Observe("Overview", fmt.Sprintf("/section/%d", i)) // at the limit
	}
	for _, tc := range []struct {
		text     string
		template bool
	}{
		{"Printer-friendly version", true},
		{"PRINTER-FRIENDLY VERSION", true},
		{"Home", false},
		{"Overview", false},
		{"Annual leave", false}, // never seen
		{"  ", true},            // no words: names nothing
	} {
		if got := a.Template(tc.text); got != tc.template {
			t.Errorf("Template(%q) = %v, want %v", tc.text, got, tc.template)
		}
	}
	got := a.Keep([]string{"Annual leave", "Printer-friendly version", "Home"})
	if want := []string{"Annual leave", "Home"}; !slices.Equal(got, want) {
		t.Errorf("Keep = %q, want %q", got, want)
	}
	a.Observe("Overview", "/section/9")
	if !a.Template("Overview") {
		t.Error("Overview on links to 4 pages is not template")
	}
}

func TestAnchorsDefaultAndBound(t *testing.T) {
	a := NewAnchors(AnchorOptions{Targets: 100}) // bounded by what a stat holds
	for i := range MaxTemplateTargets + 1 {
		a.Observe("Next", fmt.Sprintf("/p/%d", i))
	}
	if !a.Template("Next") {
		t.Errorf("Next on %d pages is not template", MaxTemplateTargets+1)
	}
	d := NewAnchors(AnchorOptions{})
	for i := range DefaultTemplateTargets + 1 {
		d.Observe("Edit", fmt.Sprintf("/p/%d", i))
	}
	if !d.Template("Edit") {
		t.Errorf("Edit on %d pages is not template by default", DefaultTemplateTargets+1)
	}
}

func TestAnchorsStripBlocks(t *testing.T) {
	a := NewAnchors(AnchorOptions{})
	for i := range DefaultTemplateTargets + 1 {
		a.Observe("Printer-friendly version", fmt.Sprintf("/print/%d", i))
		a.Observe("Permalink", fmt.Sprintf("/p/%d;jsessionid=%d", i, i))
	}
	a.Observe("Fewer printers, lower costs", "/news/fewer-printers.html")
	for _, tc := range []struct {
		name     string
		in, want []string
	}{
		{"template link texts go", []string{"Colour printing is for managers.", "Printer-friendly  VERSION", "Permalink"},
			[]string{"Colour printing is for managers."}},
		{"a link text naming one page stays", []string{"Fewer printers, lower costs", "Printer-friendly version"},
			[]string{"Fewer printers, lower costs"}},
		{"a block holding more than the link text stays", []string{"Ask for a printer-friendly version at the desk."},
			[]string{"Ask for a printer-friendly version at the desk."}},
		{"all template: keep all", []string{"Printer-friendly version", "Permalink"}, []string{"Printer-friendly version", "Permalink"}},
		{"empty", nil, []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.in)
			if got := a.StripBlocks(in); !slices.Equal(got, tc.want) {
				t.Errorf("StripBlocks = %q, want %q", got, tc.want)
			}
			if !slices.Equal(in, tc.in) {
				t.Error("StripBlocks modified its input")
			}
		})
	}
}
