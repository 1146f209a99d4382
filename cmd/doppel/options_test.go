package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
	"github.com/doppel-search/doppel/dedup/imatch"
)

// TestDetectorSettings: doppel dedup's detector settings give the
// dedup.Options they name (the candidate sources following
// --edit-allowance when auto, "mem" keeping every set in memory), and a
// value no option reads is an error naming it.
func TestDetectorSettings(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*detectorSettings)
		check  func(dedup.Options) bool
		err    string
	}{
		{"defaults", func(*detectorSettings) {}, func(o dedup.Options) bool {
			return o.Method == dedup.Hybrid && o.Threshold == 0.9 && o.ShingleWidth == 5 && o.LSHOnly &&
				o.IMatch.Mode == imatch.Range && o.MaxFanout == dedup.DefaultMaxFanout && slices.Equal(o.Terms.NGrams, []int{1}) &&
				o.SimHash.HighWeight == 1 && o.SetsMemory == 0
		}, ""},
		{"auto candidates with an edit allowance", func(s *detectorSettings) { s.EditAllowance = 3 },
			func(o dedup.Options) bool { return !o.LSHOnly && o.EditAllowance == 3 }, ""},
		{"sets in memory", func(s *detectorSettings) { s.SetsDir = "mem" },
			func(o dedup.Options) bool { return o.SetsDir == "" && o.SetsMemory == -1 }, ""},
		{"terms", func(s *detectorSettings) { s.NGrams, s.Stem, s.StripDates, s.Master = "3, 5", true, true, "newest" },
			func(o dedup.Options) bool {
				return slices.Equal(o.Terms.NGrams, []int{3, 5}) && o.Terms.Stem && o.Terms.StripDates && o.Master == cluster.Newest
			}, ""},
		{"unknown method", func(s *detectorSettings) { s.Method = "magic" }, nil, `unknown method "magic"`},
		{"unknown candidates", func(s *detectorSettings) { s.Candidates = "some" }, nil, `--candidates: "some"`},
		{"unknown lexicon", func(s *detectorSettings) { s.IMatchLexicon = "wide" }, nil, `I-Match lexicon "wide"`},
		{"unknown master policy", func(s *detectorSettings) { s.Master = "tallest" }, nil, "tallest"},
		{"an n-gram size that is no number", func(s *detectorSettings) { s.NGrams = "1,x" }, nil, `--ngrams: "x"`},
		{"a threshold out of range", func(s *detectorSettings) { s.Threshold = 1.5 }, nil, "hreshold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := detectorDefaults()
			tc.change(&s)
			o, err := s.detector()
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("error %v, want one saying %q", err, tc.err)
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err == "" && !tc.check(o):
				t.Errorf("options %+v", o)
			}
		})
	}
}
