package userquery

import (
	"cmp"
	"context"
	"slices"

	bsearch "github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

// positions reads the positions of a phrase's words in the documents a
// phrase searcher's candidates are, for a search that scores them
// without their locations: a term's positions in a document are decoded
// only when the slots before it in the order of the check (the rarest
// first) leave a place where the phrase may start. A candidate holding
// every word of "Uses of Class java.lang.String (Java SE 17 & JDK 17)"
// in its body — thousands of pages, with "java" and "17" many times
// each — is mostly ruled out by the positions of one or two rare words.
type positions struct {
	terms  []*termPositions // each distinct term once
	order  []int            // the slots that are not gaps, the rarest first
	slots  [][]int          // by slot: its terms (indexes into terms)
	starts []start          // the starts of the slot being read (reused)
	places []start          // the starts every slot read so far names (reused)
}

// termPositions reads one term's positions, document after document.
type termPositions struct {
	term   string
	reader index.TermFieldReader // with term vectors
	doc    *index.TermFieldDoc   // where the reader is (reused)
	at     index.IndexInternalID // doc's document (nil: none read yet)
	done   bool                  // no document left
	count  uint64                // documents holding the term (for the order)
}

// newPositions returns the readers of the positions of terms (by slot;
// an empty slot is a gap) in field of r, ordered by the documents
// holding each slot's terms, fewest first.
func newPositions(ctx context.Context, r index.IndexReader, field string, terms [][]string) (*positions, error) {
	p := &positions{slots: make([][]int, len(terms))}
	byTerm := map[string]int{}
	for i, alts := range terms {
		for _, t := range alts {
			if t == "" {
				continue
			}
			k, ok := byTerm[t]
			if !ok {
				tr, err := r.TermFieldReader(ctx, []byte(t), field, true, false, true)
				if err != nil {
					_ = p.close()
					return nil, err
				}
				k = len(p.terms)
				byTerm[t] = k
				p.terms = append(p.terms, &termPositions{term: t, reader: tr, doc: &index.TermFieldDoc{}, count: tr.Count()})
			}
			if !slices.Contains(p.slots[i], k) {
				p.slots[i] = append(p.slots[i], k)
			}
		}
		if len(p.slots[i]) > 0 {
			p.order = append(p.order, i)
		}
	}
	held := func(i int) (n uint64) {
		for _, k := range p.slots[i] {
			n += p.terms[k].count
		}
		return n
	}
	slices.SortStableFunc(p.order, func(a, b int) int { return cmp.Compare(held(a), held(b)) })
	return p, nil
}

// holds reports whether the document id holds the phrase: a start
// (array positions and position) that every slot that is not a gap
// names for one of its terms, as phraseSearcher.matchesAt decides from
// a candidate's locations. Candidates come in index order.
func (p *positions) holds(id index.IndexInternalID) (bool, error) {
	for n, i := range p.order {
		p.starts = p.starts[:0]
		for _, k := range p.slots[i] {
			vecs, err := p.terms[k].in(id)
			if err != nil {
				return false, err
			}
			for _, v := range vecs {
				if s := int64(v.Pos) - int64(i); s >= 1 {
					p.starts = append(p.starts, start{ap: bsearch.ArrayPositions(v.ArrayPositions), pos: s})
				}
			}
		}
		slices.SortFunc(p.starts, compareStarts)
		if n == 0 {
			p.places = append(p.places[:0], p.starts...)
		} else {
			p.places = slices.DeleteFunc(p.places, func(c start) bool {
				_, ok := slices.BinarySearchFunc(p.starts, c, compareStarts)
				return !ok
			})
		}
		if len(p.places) == 0 {
			return false, nil
		}
	}
	return len(p.order) > 0, nil
}

// in returns the term's positions in the document id (none if it does
// not hold the term), reading them if the reader is before id.
func (t *termPositions) in(id index.IndexInternalID) ([]*index.TermFieldVector, error) {
	if t.at != nil {
		switch c := t.at.Compare(id); {
		case c == 0:
			return t.doc.Vectors, nil
		case c > 0:
			return nil, nil
		}
	}
	if t.done {
		return nil, nil
	}
	doc, err := t.reader.Advance(id, t.doc.Reset())
	if err != nil {
		return nil, err
	}
	if doc == nil {
		t.done = true
		return nil, nil
	}
	t.doc = doc
	t.at = append(t.at[:0], doc.ID...)
	if t.at.Compare(id) != 0 {
		return nil, nil
	}
	return doc.Vectors, nil
}

// close closes the readers.
func (p *positions) close() error {
	var err error
	for _, t := range p.terms {
		if t.reader != nil {
			err = cmp.Or(err, t.reader.Close())
		}
	}
	return err
}

// size is bleve's memory estimate of the readers.
func (p *positions) size() int {
	n := 64
	for _, t := range p.terms {
		n += 96 + len(t.term) + t.reader.Size()
	}
	return n
}
