package indexer

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/doppel-search/doppel/internal/tokens"
)

// Document types in the bleve index.
const (
	DocType    = "doppel"        // searchable documents
	MemberType = "doppel_member" // member records
)

// Field names of searchable documents.
const (
	FieldTitle        = "title"
	FieldHeadings     = "headings"
	FieldBody         = "body"
	FieldAnchors      = "anchors"
	FieldURL          = "url"
	FieldHost         = "host"
	FieldCluster      = "cluster"
	FieldMaster       = "master"
	FieldLastModified = "last_modified"
	FieldGroups       = "groups"
	FieldSimhash      = "simhash"
	FieldLang         = "lang"
	FieldType         = "type"     // a document's format ("pdf", "docx", …); absent for an HTML page
	FieldTemplate     = "template" // stored only
	// FieldDiff marks a difference record (Doc.Diff): a boolean, true
	// or absent.
	FieldDiff = "diff"
	// FieldAll is bleve's composite field of the text fields: the terms
	// of title, headings, body and anchors, and of no other field. A
	// document holds a term in one of them if and only if it holds the
	// term here.
	FieldAll = "_all"
	// FieldWords holds the distinct words of the title and headings,
	// lowercased, as Doppel's tokenizer cuts them (not stemmed): what
	// spelling suggestions and completions are made of. Each word is a
	// term as it is (indexed as one text analyzed by [WordsAnalyzerName];
	// a list of keyword values in an index made before), with term
	// vectors (a match says which word), not stored.
	FieldWords = "words"
	// FieldSpell holds the distinct words of the title, headings and
	// text, lowercased, as Doppel's tokenizer cuts them (not stemmed), at
	// most MaxSpellWords: the vocabulary spelling suggestions are looked
	// for in (a stemmed field cannot say that "evenually" is one letter
	// from "eventually", whose stem is "eventu"). Each word is a term as
	// it is, as in [FieldWords]; neither stored nor scored.
	FieldSpell = "spell"
)

// MaxSpellWords bounds the distinct words of one document in [FieldSpell].
const MaxSpellWords = 4096

// textFields are the text fields of a searchable document, analyzed in
// the page's language and in [FieldAll].
var textFields = []string{FieldTitle, FieldHeadings, FieldBody, FieldAnchors}

// TitleBoost is the query-time boost [TextQuery] gives the title field.
const TitleBoost = 3

// Fields of member records; only kind and cluster are indexed.
const (
	fieldKind           = "doppel_kind"
	fieldMemberCluster  = "member_cluster"
	fieldMemberURL      = "member_url"
	fieldMemberTitle    = "member_title"
	fieldMemberIndexed  = "member_indexed"
	fieldMemberMaster   = "member_master"
	fieldMemberGroups   = "member_groups"
	fieldMemberModified = "member_modified"
	fieldMemberLength   = "member_length"
	fieldMemberEdited   = "member_edited"
	fieldMemberLang     = "member_lang"
	fieldMemberType     = "member_type"
	memberPrefix        = "doppel.member/"
)

// Mapping returns a new index mapping with Doppel's document type
// ([DocType], also the default mapping) and member-record type
// ([MemberType]); see the package documentation for the fields. Callers may
// add type mappings of their own before creating the index. Each call
// returns a fresh mapping.
func Mapping() *mapping.IndexMappingImpl {
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = AnalyzerName
	im.DefaultType = DocType
	docTypes(im)
	im.DefaultMapping = im.TypeMapping[DocType]
	im.AddDocumentMapping(MemberType, memberMapping())
	return im
}

// docTypes adds Doppel's searchable document types to im: [DocType]
// and one per language.
func docTypes(im *mapping.IndexMappingImpl) {
	im.AddDocumentMapping(DocType, docMapping(AnalyzerName))
	for _, a := range languageTypes() {
		im.AddDocumentMapping(DocType+"/"+strings.TrimPrefix(a, analyzerPrefix), docMapping(a))
	}
}

// fieldNames returns the names of the fields of Doppel's documents.
func fieldNames() []string {
	var out []string
	for name := range docMapping(AnalyzerName).Properties {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// AddTo adds Doppel's searchable document types to m, a user's own index
// mapping, for an index that holds the user's documents and Doppel's
// (see [Wrap]): [DocType] and a type per language ("doppel/de", …), with
// the fields described in the package documentation. It leaves m's
// default type, default mapping, default analyzer, default field (_all)
// and type field as they are, and adds no type default analyzer, so
// that the user's documents are indexed and queried as before: a match
// query on _all, or on a field of theirs, is analyzed as it was. (A
// query on one of Doppel's field names is analyzed as Doppel's.)
// Doppel's documents add their text to _all, as the user's do; member
// and difference records go to a separate index (Options.Records,
// made with [RecordsMapping]).
//
// Field names are shared by every type of a bleve index, so the user's
// documents must not have fields of Doppel's names: AddTo returns an
// error wrapping [ErrMapping], changing nothing, if m maps one of them
// (or one of Doppel's type names) already, and a user whose documents
// have such a field unmapped (dynamic) must rename it or keep Doppel's
// documents in an index of their own ([Open]). The names are title,
// headings, body, anchors, template, url, host, cluster, master, diff,
// last_modified, groups, simhash, lang, type, words, spell and names.
func AddTo(m *mapping.IndexMappingImpl) error {
	types := []string{DocType, MemberType}
	for _, a := range languageTypes() {
		types = append(types, DocType+"/"+strings.TrimPrefix(a, analyzerPrefix))
	}
	var clash []string
	for _, t := range types {
		if m.TypeMapping[t] != nil {
			clash = append(clash, "type "+t)
		}
	}
	mappings := []*mapping.DocumentMapping{m.DefaultMapping}
	for _, dm := range m.TypeMapping {
		mappings = append(mappings, dm)
	}
	for _, f := range fieldNames() {
		for _, dm := range mappings {
			if dm != nil && dm.Properties[f] != nil {
				clash = append(clash, "field "+f)
				break
			}
		}
	}
	if len(clash) > 0 {
		return fmt.Errorf("%w: the mapping already has %s", ErrMapping, strings.Join(clash, ", "))
	}
	docTypes(m)
	return nil
}

// RecordsMapping returns the mapping of the index that holds the member
// and difference records of a user's own index (Options.Records; see
// [AddTo]): Doppel's own, [Mapping].
func RecordsMapping() *mapping.IndexMappingImpl { return Mapping() }

// docMapping returns the mapping of a searchable document whose text
// fields are analyzed by analyzer. Bleve answers which analyzer a query
// on a path analyzes with (AnalyzerNameForPath) from the first document
// type, in map order, that names one for the path: on a field mapping,
// else as a default analyzer. So only [DocType]'s mapping names the
// analyzer on its text fields, and a language's type names its analyzer
// as the default of each text field's property — never as the type's
// default, which would answer for every path no field names (the _all
// field, a user's own fields) as one language or another from run to
// run. Query analysis is then [AnalyzerName] for the text fields and
// the index's default analyzer elsewhere, whatever the order.
func docMapping(analyzer string) *mapping.DocumentMapping {
	text := func(inAll bool) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = ""
		if analyzer == AnalyzerName {
			f.Analyzer = AnalyzerName
		}
		f.Store = true
		f.IncludeTermVectors = true // phrases and snippets
		f.DocValues = false         // nothing sorts or facets by a text field
		f.IncludeInAll = inAll
		return f
	}

	dm := bleve.NewDocumentStaticMapping()
	for _, name := range textFields {
		dm.AddFieldMappingsAt(name, text(true))
		if analyzer != AnalyzerName {
			dm.Properties[name].DefaultAnalyzer = analyzer
		}
	}
	dm.AddFieldMappingsAt(FieldTemplate, storedField(bleve.NewTextFieldMapping()))
	for _, name := range []string{FieldURL, FieldHost, FieldCluster, FieldLang, FieldType} {
		f := keywordField()
		f.DocValues = true // sort keys and facets of a result page (package ranking)
		dm.AddFieldMappingsAt(name, f)
	}
	for _, name := range []string{FieldGroups, FieldSimhash} {
		dm.AddFieldMappingsAt(name, keywordField())
	}
	words := keywordField()
	words.Store, words.IncludeTermVectors, words.Analyzer = false, true, WordsAnalyzerName
	dm.AddFieldMappingsAt(FieldWords, words)
	spell := keywordField()
	spell.Store, spell.Analyzer = false, WordsAnalyzerName
	dm.AddFieldMappingsAt(FieldSpell, spell)
	names := keywordField()
	names.Store = false
	dm.AddFieldMappingsAt(FieldNames, names)
	master := bleve.NewBooleanFieldMapping()
	master.IncludeInAll = false
	dm.AddFieldMappingsAt(FieldMaster, master)
	diff := bleve.NewBooleanFieldMapping()
	diff.IncludeInAll = false
	dm.AddFieldMappingsAt(FieldDiff, diff)
	lm := bleve.NewDateTimeFieldMapping()
	lm.IncludeInAll = false
	dm.AddFieldMappingsAt(FieldLastModified, lm)
	return dm
}

// keywordField returns the mapping of an exact-valued field: indexed and
// stored, without term vectors (no phrase or snippet reads a keyword's
// position) or doc values (a field that is sorted or faceted by turns
// them on).
func keywordField() *mapping.FieldMapping {
	f := bleve.NewKeywordFieldMapping()
	f.Analyzer = keyword.Name
	f.IncludeInAll = false
	f.IncludeTermVectors = false
	f.DocValues = false
	return f
}

// storedField returns f stored and not indexed.
func storedField(f *mapping.FieldMapping) *mapping.FieldMapping {
	f.Index = false
	f.DocValues = false
	f.IncludeInAll = false
	f.Store = true
	return f
}

// memberMapping returns the mapping of member records.
func memberMapping() *mapping.DocumentMapping {
	mm := bleve.NewDocumentStaticMapping()
	kind := keywordField()
	kind.Store = false
	mm.AddFieldMappingsAt(fieldKind, kind)
	mm.AddFieldMappingsAt(fieldMemberCluster, keywordField())
	mm.AddFieldMappingsAt(fieldMemberURL, storedField(bleve.NewTextFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberTitle, storedField(bleve.NewTextFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberIndexed, storedField(bleve.NewBooleanFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberMaster, storedField(bleve.NewBooleanFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberGroups, storedField(bleve.NewTextFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberModified, storedField(bleve.NewDateTimeFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberLength, storedField(bleve.NewNumericFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberEdited, storedField(bleve.NewBooleanFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberLang, storedField(bleve.NewTextFieldMapping()))
	mm.AddFieldMappingsAt(fieldMemberType, storedField(bleve.NewTextFieldMapping()))
	return mm
}

// TextQuery returns a query for the words of text in the title (boosted by
// [TitleBoost]), the headings (boosted by 2), the anchor texts of links to
// the document (boosted by 1.5) and the body, as analyzed for a page in
// any language (see [AnalyzerFor]: the words as each language's analyzer
// makes them, once for analyzers that make the same terms). Wrap it with
// [Index.Searchable] before searching.
func TextQuery(text string) query.Query {
	names := textAnalyzers(text)
	q := func(field string, boost float64) query.Query {
		var alts []query.Query
		for _, a := range names {
			m := bleve.NewMatchQuery(text)
			m.SetField(field)
			m.SetBoost(boost)
			m.Analyzer = a
			alts = append(alts, m)
		}
		return bleve.NewDisjunctionQuery(alts...)
	}
	return bleve.NewDisjunctionQuery(q(FieldTitle, TitleBoost), q(FieldHeadings, 2), q(FieldAnchors, 1.5), q(FieldBody, 1))
}

// analyzerCache resolves the analyzers TextQuery analyzes with.
var analyzerCache = sync.OnceValue(registry.NewCache)

// textAnalyzers returns the analyzers of every language that analyze
// text differently from each other, [AnalyzerName] first.
func textAnalyzers(text string) []string {
	return DistinctAnalyzers(func(name string) analysis.Analyzer {
		a, _ := analyzerCache().AnalyzerNamed(name)
		return a
	}, Analyzers(allLanguages()), text)
}

// DistinctAnalyzers returns those of the analyzers names (resolved by
// named; an unknown one is left out) that analyze text into other terms
// or positions than every one before them: the analyses a query of text
// needs, once each.
func DistinctAnalyzers(named func(string) analysis.Analyzer, names []string, text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, name := range names {
		a := named(name)
		if a == nil {
			continue
		}
		var k strings.Builder
		for _, t := range a.Analyze([]byte(text)) {
			fmt.Fprintf(&k, "%d:%s\x00", t.Position, t.Term)
		}
		if !seen[k.String()] {
			seen[k.String()] = true
			out = append(out, name)
		}
	}
	return out
}

// titleWords returns the distinct words of a title and headings
// (FieldWords), at most 256.
func titleWords(title string, headings []string) []string {
	return distinctWords(256, append([]string{title}, headings...)...)
}

// spellWords returns the distinct words of a document's title, headings
// and text (FieldSpell), at most MaxSpellWords.
func spellWords(d *Doc) []string {
	return distinctWords(MaxSpellWords, append(append([]string{d.Title}, d.Headings...), d.Body)...)
}

// distinctWords returns the first max distinct words of texts, lowercased.
func distinctWords(max int, texts ...string) []string {
	var out []string
	seen := map[string]bool{}
	for _, text := range texts {
		tokens.Scan(text, func(start, end int, lower bool) {
			w := text[start:end]
			if !lower {
				w = strings.ToLower(w)
			}
			if !seen[w] && len(out) < max {
				seen[w] = true
				out = append(out, w)
			}
		})
	}
	return out
}

// docData is a searchable document as bleve maps it.
type docData map[string]any

// typeKey holds a document's bleve type in its docData: [DocType] or a
// language's type (docTypeFor). No mapping names it, so it is neither
// indexed nor stored.
const typeKey = "doppel_doc_type"

// BleveType implements bleve's classifier: the document type of the
// page's language, whose analyzer indexes its text. (An index made
// before a language had its type maps it by the default mapping.)
func (d docData) BleveType() string {
	if t, ok := d[typeKey].(string); ok {
		return t
	}
	return DocType
}

// wordLists says how an index's mapping takes the word lists of
// [FieldWords] and [FieldSpell]: as one text of words separated by
// spaces, analyzed by [WordsAnalyzerName] (joined), or — in an index made
// before — as a list of keyword values.
type wordLists struct{ joined bool }

// wordListsOf returns how the mapping of Doppel's documents in im takes
// word lists.
func wordListsOf(im *mapping.IndexMappingImpl) wordLists {
	dm := im.TypeMapping[DocType]
	if dm == nil || dm.Properties[FieldSpell] == nil || len(dm.Properties[FieldSpell].Fields) == 0 {
		return wordLists{}
	}
	return wordLists{joined: dm.Properties[FieldSpell].Fields[0].Analyzer == WordsAnalyzerName}
}

// value returns words as the mapping takes them.
func (l wordLists) value(words []string) any {
	if l.joined {
		return strings.Join(words, " ")
	}
	return words
}

func toData(d *Doc, lists wordLists) docData {
	m := docData{
		FieldTitle:    d.Title,
		FieldHeadings: d.Headings,
		FieldBody:     d.Body,
		FieldAnchors:  d.Anchors,
		FieldURL:      d.URL,
		FieldHost:     d.Host,
		FieldCluster:  d.Cluster,
		FieldMaster:   d.Master,
		FieldGroups:   d.Groups,
		FieldSimhash:  fmt.Sprintf("%016x", d.Simhash),
	}
	if w := titleWords(d.Title, d.Headings); len(w) > 0 {
		m[FieldWords] = lists.value(w)
	}
	if w := spellWords(d); len(w) > 0 {
		m[FieldSpell] = lists.value(w)
	}
	if k := TitleKeys(d.Title); len(k) > 0 {
		m[FieldNames] = k
	}
	if d.Lang != "" {
		m[FieldLang] = d.Lang
		m[typeKey] = docTypeFor(d.Lang)
	}
	if d.Type != "" {
		m[FieldType] = d.Type
	}
	if len(d.Template) > 0 {
		m[FieldTemplate] = d.Template
	}
	if len(d.Groups) == 0 {
		m[FieldGroups] = []string{PublicGroup}
	}
	if d.Diff {
		m[FieldDiff] = true
	}
	if !d.LastModified.IsZero() {
		m[FieldLastModified] = d.LastModified.UTC()
	}
	return m
}

// fromStored rebuilds a Doc from its stored fields.
func fromStored(id string, sd index.Document) (*Doc, error) {
	d := &Doc{ID: id}
	var err error
	sd.VisitFields(func(f index.Field) {
		if err == nil {
			err = setStored(d, f)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%w: document %q: %w", ErrCorrupt, id, err)
	}
	return d, nil
}

// setStored sets the field of d that the stored field f holds; fields
// of no Doc field are ignored.
func setStored(d *Doc, f index.Field) error {
	switch f := f.(type) {
	case *document.TextField:
		return setText(d, f.Name(), string(f.Value()))
	case *document.BooleanField:
		switch f.Name() {
		case FieldMaster:
			v, err := f.Boolean()
			d.Master = v
			return err
		case FieldDiff:
			v, err := f.Boolean()
			d.Diff = v
			return err
		}
	case *document.DateTimeField:
		if f.Name() == FieldLastModified {
			t, _, err := f.DateTime()
			d.LastModified = t
			return err
		}
	}
	return nil
}

// setText sets the text or keyword field name of d to v (appends it, for
// a field of several values); the groups field's PublicGroup stands for
// no groups.
func setText(d *Doc, name, v string) error {
	switch name {
	case FieldTitle:
		d.Title = v
	case FieldHeadings:
		d.Headings = append(d.Headings, v)
	case FieldBody:
		d.Body = v
	case FieldAnchors:
		d.Anchors = append(d.Anchors, v)
	case FieldTemplate:
		d.Template = append(d.Template, v)
	case FieldURL:
		d.URL = v
	case FieldHost:
		d.Host = v
	case FieldLang:
		d.Lang = v
	case FieldType:
		d.Type = v
	case FieldCluster:
		d.Cluster = v
	case FieldGroups:
		if v != PublicGroup {
			d.Groups = append(d.Groups, v)
		}
	case FieldSimhash:
		h, err := strconv.ParseUint(v, 16, 64)
		d.Simhash = h
		return err
	}
	return nil
}

// memberData is a member record as bleve maps it.
type memberData map[string]any

// BleveType implements bleve's classifier.
func (memberData) BleveType() string { return MemberType }

func toMemberData(cluster string, m Member) memberData {
	md := memberData{
		fieldKind:          MemberType,
		fieldMemberCluster: cluster,
		fieldMemberURL:     m.URL,
		fieldMemberTitle:   m.Title,
		fieldMemberIndexed: m.Indexed,
		fieldMemberMaster:  m.Master,
		fieldMemberGroups:  m.Groups,
		fieldMemberLength:  m.Length,
		fieldMemberEdited:  m.Edited,
		fieldMemberLang:    m.Lang,
	}
	if m.Type != "" {
		md[fieldMemberType] = m.Type
	}
	if !m.LastModified.IsZero() {
		md[fieldMemberModified] = m.LastModified.UTC()
	}
	return md
}

// moveLanguageDefaults gives an index mapping made before the language
// types named their analyzer per text field (see docMapping) the
// mapping it would have now: each language type's default analyzer
// becomes the default of its text fields' properties. Documents are
// analyzed as before; queries on _all and on paths no field names are
// analyzed by the index's default analyzer instead of a language's
// picked at random.
func moveLanguageDefaults(im *mapping.IndexMappingImpl) {
	for name, dm := range im.TypeMapping {
		if !strings.HasPrefix(name, DocType+"/") || dm.DefaultAnalyzer == "" {
			continue
		}
		for _, f := range textFields {
			if p := dm.Properties[f]; p != nil && p.DefaultAnalyzer == "" {
				p.DefaultAnalyzer = dm.DefaultAnalyzer
			}
		}
		dm.DefaultAnalyzer = ""
	}
}
