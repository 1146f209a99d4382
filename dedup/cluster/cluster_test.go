package cluster

import (
	"testing"
	"time"
)

func TestPolicies(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := []Member{
		{ID: "a", URL: "http://x/long/path/a", Time: t0, Quality: 0.5},
		{ID: "b", URL: "http://x/b", Time: t0.Add(time.Hour), Quality: 0.2},
		{ID: "c", URL: "http://x/c", Time: t0.Add(-time.Hour), Quality: 0.9},
	}
	tests := []struct {
		p          Policy
		wantMaster string
	}{
		{FirstSeen, "a"},
		{ShortestURL, "b"}, // b and c tie on length: byte order decides
		{MostRecent, "b"},
		{HighestQuality, "c"},
	}
	// ShortestURL does not depend on arrival order.
	rev := NewSet(ShortestURL)
	rid := rev.Found(docs[2])
	rev.Join(rid, docs[1])
	rev.Join(rid, docs[0])
	if got := rev.Get(rid).Master.ID; got != "b" {
		t.Errorf("ShortestURL, reverse arrival: master = %s, want b", got)
	}
	for _, tt := range tests {
		s := NewSet(tt.p)
		id := s.Found(docs[0])
		for _, m := range docs[1:] {
			s.Join(id, m)
		}
		if got := s.Get(id).Master.ID; got != tt.wantMaster {
			t.Errorf("%v: master = %s, want %s", tt.p, got, tt.wantMaster)
		}
		if s.Get(id).ID != IDFor("a") {
			t.Errorf("%v: cluster id changed with the master", tt.p)
		}
		if len(s.Get(id).Members) != 3 || s.Docs() != 3 || s.Len() != 1 {
			t.Errorf("%v: members/docs/len wrong", tt.p)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for _, p := range []Policy{FirstSeen, ShortestURL, MostRecent, HighestQuality} {
		got, err := ParsePolicy(p.String())
		if err != nil || got != p {
			t.Errorf("ParsePolicy(%q) = %v, %v", p.String(), got, err)
		}
	}
	if _, err := ParsePolicy("best"); err == nil {
		t.Error("ParsePolicy(best): want error")
	}
}

func TestIDsStableAndDistinct(t *testing.T) {
	s1, s2 := NewSet(FirstSeen), NewSet(FirstSeen)
	a1, a2 := s1.Found(Member{ID: "doc-1"}), s2.Found(Member{ID: "doc-1"})
	if a1 != a2 {
		t.Errorf("same founder, different ids: %s %s", a1, a2)
	}
	if b := s1.Found(Member{ID: "doc-2"}); b == a1 {
		t.Error("different founders share an id")
	}
	if id, ok := s1.Of("doc-2"); !ok || id == a1 {
		t.Error("Of(doc-2) wrong")
	}
	if all := s1.All(); len(all) != 2 || all[0].ID != a1 {
		t.Error("All not in creation order")
	}
}

func TestDuplicateDocumentPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("adding a document twice did not panic")
		}
	}()
	s := NewSet(FirstSeen)
	id := s.Found(Member{ID: "a"})
	s.Join(id, Member{ID: "a"})
}
