package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
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
		{Newest, "b"},
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

// TestNewest checks the newest policy on series and copies: the latest
// date stands, an undated member counts as older than any dated one,
// equal dates fall back to the shortest URL; in every arrival order the
// same master, and Better is a strict order (never both ways, and
// transitive) over all of them.
func TestNewest(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, time.January, d, 0, 0, 0, 0, time.UTC) }
	for _, tc := range []struct {
		name    string
		members []Member
		want    string
	}{
		{"series", []Member{{ID: "jan", URL: "http://x/n-01", Time: day(1)}, {ID: "mar", URL: "http://x/n-03", Time: day(3)}, {ID: "feb", URL: "http://x/n-02", Time: day(2)}}, "mar"},
		{"newest over shorter", []Member{{ID: "old", URL: "http://x/a", Time: day(1)}, {ID: "new", URL: "http://x/longer/path", Time: day(2)}}, "new"},
		{"copies of one date", []Member{{ID: "copy", URL: "http://x/mirror/page", Time: day(5)}, {ID: "orig", URL: "http://x/page", Time: day(5)}}, "orig"},
		{"undated copies", []Member{{ID: "copy", URL: "http://x/mirror/page"}, {ID: "orig", URL: "http://x/page"}}, "orig"},
		{"dated over undated", []Member{{ID: "undated", URL: "http://x/a"}, {ID: "dated", URL: "http://x/longer", Time: day(1)}}, "dated"},
		{"mixed", []Member{{ID: "u", URL: "http://x/u"}, {ID: "d1", URL: "http://x/d1", Time: day(1)}, {ID: "d2a", URL: "http://x/long/d2", Time: day(2)}, {ID: "d2b", URL: "http://x/d2", Time: day(2)}}, "d2b"},
		{"preference first", []Member{{ID: "new", URL: "http://x/n", Time: day(9)}, {ID: "preferred", URL: "http://x/p", Time: day(1), Preference: 1}}, "preferred"},
	} {
		for _, order := range permutations(len(tc.members)) {
			s := NewSet(Newest)
			id := s.Found(tc.members[order[0]])
			for _, i := range order[1:] {
				s.Join(id, tc.members[i])
			}
			if got := s.Get(id).Master.ID; got != tc.want {
				t.Errorf("%s, arrival %v: master %s, want %s", tc.name, order, got, tc.want)
			}
		}
		if got := tc.members[Newest.Best(tc.members)].ID; got != tc.want {
			t.Errorf("%s: Best = %s, want %s", tc.name, got, tc.want)
		}
		for _, a := range tc.members {
			for _, b := range tc.members {
				if Newest.Better(a, b) && Newest.Better(b, a) {
					t.Errorf("%s: %s and %s are each better than the other", tc.name, a.ID, b.ID)
				}
				for _, c := range tc.members {
					if Newest.Better(a, b) && Newest.Better(b, c) && !Newest.Better(a, c) {
						t.Errorf("%s: %s > %s > %s but not %s > %s", tc.name, a.ID, b.ID, c.ID, a.ID, c.ID)
					}
				}
			}
		}
	}
}

// permutations returns every order of 0…n-1.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := slices.Insert(slices.Clone(p), i, n-1)
			out = append(out, q)
		}
	}
	return out
}

func TestParsePolicy(t *testing.T) {
	for _, p := range []Policy{FirstSeen, ShortestURL, MostRecent, HighestQuality, Newest} {
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

// model is the reference for TestRemoveAgainstModel: clusters as plain
// slices, in order of creation.
type model struct {
	ids     []ID
	members map[ID][]Member
	master  map[ID]string
}

func (md *model) find(docID string) (ID, int) {
	for _, id := range md.ids {
		for i, m := range md.members[id] {
			if m.ID == docID {
				return id, i
			}
		}
	}
	return "", -1
}

// TestRemoveAgainstModel drives a Set and a plain model with random
// Found, Join, JoinAsMember, Remove (with the policy's election and with
// a hook), Update and Promote, and compares every cluster after every
// operation. A second Set driven with only the policy's operations (Found,
// Join, Remove with the default election) is compared with a Set rebuilt
// from its surviving members in order: same members, and the master the
// policy prefers among them.
func TestRemoveAgainstModel(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, p := range []Policy{FirstSeen, ShortestURL, MostRecent, HighestQuality, Newest} {
		t.Run(p.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(3, uint64(p)))
			member := func(n int) Member {
				return Member{ID: fmt.Sprint("d", n), URL: fmt.Sprintf("http://x/%0*d", 1+r.IntN(4), r.IntN(10)),
					Time: t0.Add(time.Duration(r.IntN(5)) * time.Hour), Quality: float64(r.IntN(4))}
			}
			s, policyOnly := NewSet(p), NewSet(p)
			md := &model{members: map[ID][]Member{}, master: map[ID]string{}}
			var live []string
			for n := range 3000 {
				op := r.IntN(10)
				if len(live) == 0 {
					op = 0
				}
				switch {
				case op < 2 || s.Len() == 0: // found
					m := member(n)
					id := s.Found(m)
					policyOnly.Found(m)
					md.ids = append(md.ids, id)
					md.members[id] = []Member{m}
					md.master[id] = m.ID
					live = append(live, m.ID)
				case op < 5: // join
					m := member(n)
					all := s.All()
					id := all[r.IntN(len(all))].ID
					became := s.Join(id, m)
					policyOnly.Join(id, m)
					if became != p.Better(m, memberOf(md, id, md.master[id])) {
						t.Fatalf("op %d: Join reported new master %v", n, became)
					}
					md.members[id] = append(md.members[id], m)
					if became {
						md.master[id] = m.ID
					}
					live = append(live, m.ID)
				case op < 6: // join as member
					m := member(n)
					all := s.All()
					id := all[r.IntN(len(all))].ID
					s.JoinAsMember(id, m)
					policyOnly.Join(id, m)
					md.members[id] = append(md.members[id], m)
					live = append(live, m.ID)
				case op < 9: // remove
					i := r.IntN(len(live))
					doc := live[i]
					live = slices.Delete(live, i, i+1)
					id, at := md.find(doc)
					hook := r.IntN(2) == 0
					var elect func(c *Cluster) int
					if hook { // elect the last member
						elect = func(c *Cluster) int { return len(c.Members) - 1 }
					}
					got, ok := s.Remove(doc, elect)
					policyOnly.Remove(doc, nil)
					if !ok || got != id {
						t.Fatalf("op %d: Remove(%s) = %s, %v; want %s", n, doc, got, ok, id)
					}
					md.members[id] = slices.Delete(md.members[id], at, at+1)
					switch ms := md.members[id]; {
					case len(ms) == 0:
						md.ids = slices.DeleteFunc(md.ids, func(x ID) bool { return x == id })
						delete(md.members, id)
						delete(md.master, id)
					case md.master[id] == doc && hook:
						md.master[id] = ms[len(ms)-1].ID
					case md.master[id] == doc:
						md.master[id] = ms[p.Best(ms)].ID
					}
				default: // update or promote
					doc := live[r.IntN(len(live))]
					id, at := md.find(doc)
					if r.IntN(2) == 0 {
						m := member(0)
						m.ID = doc
						s.Update(m)
						md.members[id][at] = m
					} else {
						s.Promote(doc)
						md.master[id] = doc
					}
				}
				compareModel(t, n, s, md)
			}
			if s.Remove("nobody", nil); s.Docs() != len(live) {
				t.Errorf("Docs = %d, want %d", s.Docs(), len(live))
			}
			// The policy-only set equals a set rebuilt from its members.
			for _, c := range policyOnly.All() {
				rebuilt := NewSet(p)
				rid := rebuilt.Found(c.Members[0])
				for _, m := range c.Members[1:] {
					rebuilt.Join(rid, m)
				}
				want := rebuilt.Get(rid)
				if c.Master != want.Master || !slices.Equal(c.Members, want.Members) {
					t.Fatalf("cluster %s: master %s, rebuilt from its members: %s", c.ID, c.Master.ID, want.Master.ID)
				}
			}
		})
	}
}

func memberOf(md *model, id ID, docID string) Member {
	for _, m := range md.members[id] {
		if m.ID == docID {
			return m
		}
	}
	panic("no member " + docID)
}

func compareModel(t *testing.T, n int, s *Set, md *model) {
	t.Helper()
	all := s.All()
	if len(all) != len(md.ids) || s.Len() != len(md.ids) {
		t.Fatalf("op %d: %d clusters (Len %d), model has %d", n, len(all), s.Len(), len(md.ids))
	}
	docs := 0
	for i, c := range all {
		id := md.ids[i]
		if c.ID != id || !slices.Equal(c.Members, md.members[id]) || c.Master.ID != md.master[id] || c.Master != memberOf(md, id, c.Master.ID) {
			t.Fatalf("op %d: cluster %d: %+v\nmodel: %s %+v master %s", n, i, c, id, md.members[id], md.master[id])
		}
		if s.Get(id) != c {
			t.Fatalf("op %d: Get(%s) differs from All", n, id)
		}
		for _, m := range c.Members {
			if got, ok := s.Of(m.ID); !ok || got != id {
				t.Fatalf("op %d: Of(%s) = %s, want %s", n, m.ID, got, id)
			}
		}
		docs += len(c.Members)
	}
	if s.Docs() != docs {
		t.Fatalf("op %d: Docs = %d, want %d", n, s.Docs(), docs)
	}
}

// TestRemoveKeepsIDs: a cluster keeps its id when its founder leaves; a
// founder that comes back founds a cluster of another id while its old
// cluster lives, and gets its old id back once that is gone.
func TestRemoveKeepsIDs(t *testing.T) {
	s := NewSet(FirstSeen)
	a := s.Found(Member{ID: "a"})
	s.Join(a, Member{ID: "b"})
	s.Join(a, Member{ID: "c"})
	if id, ok := s.Remove("a", nil); !ok || id != a || s.Get(a).Master.ID != "b" {
		t.Fatalf("Remove(a) = %s, %v; master %s", id, ok, s.Get(a).Master.ID)
	}
	again := s.Found(Member{ID: "a"})
	if again == a {
		t.Fatal("the founder came back under the id of its old, living cluster")
	}
	s.Remove("a", nil)
	s.Remove("b", nil)
	s.Remove("c", nil)
	if s.Len() != 0 || s.Docs() != 0 || len(s.All()) != 0 || s.Get(a) != nil {
		t.Fatalf("set not empty: %d clusters, %d docs", s.Len(), s.Docs())
	}
	if id := s.Found(Member{ID: "a"}); id != a {
		t.Errorf("founder back in an empty set: %s, want %s", id, a)
	}
	if _, ok := s.Remove("zz", nil); ok {
		t.Error("Remove of an unknown document reported true")
	}
	if s.Update(Member{ID: "zz"}) || s.Promote("zz") {
		t.Error("Update or Promote of an unknown document reported true")
	}
}

// TestPreferenceFirst: a member with a higher Preference is the better
// master under every policy, in every arrival order.
func TestPreferenceFirst(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := []Member{
		{ID: "da", URL: "http://x/manual/da/a.html", Time: t0.Add(time.Hour), Quality: 0.9},
		{ID: "en", URL: "http://x/manual/en/a.html", Time: t0, Quality: 0.1, Preference: 1},
		{ID: "de", URL: "http://x/de/a.html", Time: t0.Add(2 * time.Hour), Quality: 0.5},
	}
	for _, p := range []Policy{FirstSeen, ShortestURL, MostRecent, HighestQuality, Newest} {
		for _, order := range [][]int{{0, 1, 2}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}} {
			s := NewSet(p)
			id := s.Found(docs[order[0]])
			for _, i := range order[1:] {
				s.Join(id, docs[i])
			}
			if got := s.Get(id).Master.ID; got != "en" {
				t.Errorf("%v, order %v: master %s, want en", p, order, got)
			}
		}
		if got := p.Best(docs); got != 1 {
			t.Errorf("%v: Best = %d, want 1", p, got)
		}
	}
}

// TestRestore checks that a set rebuilt from another's clusters (All,
// Restore) holds the same clusters and goes on as the original.
func TestRestore(t *testing.T) {
	s := NewSet(ShortestURL)
	a := s.Found(Member{ID: "a", URL: "http://x/long/a"})
	s.Join(a, Member{ID: "b", URL: "http://x/b"})
	s.Found(Member{ID: "c", URL: "http://x/c"})
	s.Join(a, Member{ID: "d", URL: "http://x/dddd"})
	s.Remove("b", nil)
	r := NewSet(ShortestURL)
	for _, c := range s.All() {
		r.Restore(*c)
	}
	if !reflect.DeepEqual(r.All(), s.All()) || r.Docs() != s.Docs() {
		t.Fatalf("restored %v, want %v", r.All(), s.All())
	}
	for _, set := range []*Set{s, r} {
		set.Join(a, Member{ID: "e", URL: "http://e"})
		set.Remove("a", nil)
	}
	if !reflect.DeepEqual(r.All(), s.All()) {
		t.Fatalf("after changes: restored %v, want %v", r.All(), s.All())
	}
	defer func() {
		if recover() == nil {
			t.Error("restoring a cluster whose master is not a member did not panic")
		}
	}()
	r.Restore(Cluster{ID: "cx", Master: Member{ID: "z"}, Members: []Member{{ID: "y"}}})
}
