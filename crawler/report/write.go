package report

import (
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"
)

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// CSVHeader is the header row WriteCSV writes.
var CSVHeader = []string{"section", "name", "value", "cluster", "size", "formats", "dated", "oldest", "newest", "master_date", "master", "title"}

// WriteCSV writes the report as one CSV table (RFC 4180) under
// CSVHeader: first a row per figure (section "summary", its name and
// value), then a row per listed cluster (section "largest", "twins" or
// "series"; a cluster may be in several), then a row per listed page
// contained in a larger one (section "contained": name is its URL,
// cluster and formats its own, master and title the larger page's URL
// and title); dates as YYYY-MM-DD. A cell of a crawled page's text (a
// URL, a title) that a spreadsheet would read as a formula — starting
// with =, +, -, @, a tab or a carriage return — is written after a
// single quote ('), which the spreadsheet shows as text (CSV injection).
func (r *Report) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	rows := [][]string{CSVHeader}
	for _, f := range r.figures() {
		rows = append(rows, []string{"summary", f.name, f.value, "", "", "", "", "", "", "", "", ""})
	}
	for _, l := range r.Lists() {
		for _, c := range l.Clusters {
			rows = append(rows, []string{l.Section, "", "", c.ID, strconv.Itoa(c.Size), c.FormatList(), strconv.Itoa(c.Dated),
				day(c.Oldest), day(c.Newest), day(c.MasterDate), cell(c.Master), cell(c.Title)})
		}
	}
	for _, c := range r.Contained {
		rows = append(rows, []string{"contained", cell(c.URL), "", c.Cluster, "", c.Format, "", "", "", "", cell(c.In), cell(c.InTitle)})
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	return cw.Error()
}

// WriteText writes the report as aligned text tables for a terminal. A
// crawled page's URL or title is written with its control characters
// (escape sequences a terminal would obey, tabs and line breaks that
// would break the table) and bidirectional overrides replaced by U+FFFD.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "Duplicates report")
	fmt.Fprintf(tw, "  pages fetched:\t%d\n", r.Pages)
	fmt.Fprintf(tw, "  clusters:\t%d (%d of more than one page)\n", r.Clusters, r.Shared)
	fmt.Fprintf(tw, "  near-duplicates:\t%d\n", r.Duplicates)
	fmt.Fprintf(tw, "  crawl budget on copies:\t%d of %d fetches (%.1f %%): %d near-duplicates, %d pages naming another URL canonical\n",
		r.Budget.Copies+r.Budget.Canonical, r.Budget.Fetched+r.Budget.Canonical, 100*r.Budget.Share, r.Budget.Copies, r.Budget.Canonical)
	fmt.Fprintf(tw, "  index space saved:\t%d pages kept out of the index (%d documents in it), %d of %d bytes of text (%.1f %%)\n",
		r.Index.KeptOut, r.Index.Documents, r.Index.KeptOutText, r.Index.Text, 100*ratio(r.Index.KeptOutText, r.Index.Text))
	for _, l := range r.Lists() {
		fmt.Fprintf(tw, "\n%s (%d", l.Title, l.Total)
		if len(l.Clusters) < l.Total {
			fmt.Fprintf(tw, ", the %d largest", len(l.Clusters))
		}
		fmt.Fprintln(tw, ")")
		if len(l.Clusters) == 0 {
			fmt.Fprintln(tw, "  none")
			continue
		}
		if l.Section == "series" {
			fmt.Fprintln(tw, "  SIZE\tDATED\tOLDEST\tNEWEST\tMASTER'S\tMASTER\tTITLE")
			for _, c := range l.Clusters {
				fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\t%s\n", c.Size, c.Dated, day(c.Oldest), day(c.Newest), cmp.Or(day(c.MasterDate), "none"), printable(c.Master), printable(c.Title))
			}
			continue
		}
		fmt.Fprintln(tw, "  SIZE\tFORMATS\tMASTER\tTITLE")
		for _, c := range l.Clusters {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", c.Size, c.FormatList(), printable(c.Master), printable(c.Title))
		}
	}
	fmt.Fprintf(tw, "\nContained in a larger page (%d", r.ContainedPages)
	if len(r.Contained) < r.ContainedPages {
		fmt.Fprintf(tw, ", the first %d", len(r.Contained))
	}
	fmt.Fprintln(tw, ")")
	if len(r.Contained) == 0 {
		fmt.Fprintln(tw, "  none")
	}
	for _, c := range r.Contained {
		fmt.Fprintf(tw, "  %s\tcontained in %s\t%s\n", printable(c.URL), printable(c.In), printable(c.InTitle))
	}
	return tw.Flush()
}

// A figure is one summary number by name.
type figure struct{ name, value string }

// figures returns the report's summary numbers, as CSV names them.
func (r *Report) figures() []figure {
	n := func(name string, v int) figure { return figure{name, strconv.Itoa(v)} }
	return []figure{
		n("pages", r.Pages), n("clusters", r.Clusters), n("shared_clusters", r.Shared), n("duplicates", r.Duplicates),
		n("twin_clusters", r.TwinClusters), n("series_clusters", r.SeriesClusters), n("contained_pages", r.ContainedPages),
		n("budget_fetched", r.Budget.Fetched), n("budget_copies", r.Budget.Copies), n("budget_canonical", r.Budget.Canonical),
		{"budget_share", strconv.FormatFloat(r.Budget.Share, 'f', 4, 64)},
		n("index_documents", r.Index.Documents), n("index_kept_out", r.Index.KeptOut),
		{"index_text_bytes", strconv.FormatInt(r.Index.Text, 10)}, {"index_kept_out_text_bytes", strconv.FormatInt(r.Index.KeptOutText, 10)},
	}
}

// A List is one list of clusters of a Report.
type List struct {
	Section  string // "largest", "twins" or "series": the CSV section
	Title    string
	Clusters []Cluster
	Total    int // clusters of its kind, listed or not
}

// Lists returns the report's lists of clusters — the largest, the
// cross-format twins, the series — in that order.
func (r *Report) Lists() []List {
	return []List{
		{"largest", "Largest clusters", r.Largest, r.Shared},
		{"twins", "Cross-format twins", r.Twins, r.TwinClusters},
		{"series", "Series", r.Series, r.SeriesClusters},
	}
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// day formats t as YYYY-MM-DD, "" for zero.
func day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.DateOnly)
}

// cell returns s as a CSV cell no spreadsheet reads as a formula.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// printable returns s with control characters and bidirectional
// formatting characters replaced by U+FFFD.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return unicode.ReplacementChar
		}
		return r
	}, s)
}
