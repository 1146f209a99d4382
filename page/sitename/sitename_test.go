package sitename

import "testing"

// TestStrip: a suffix that at least half of a host's titles (and
// MinTitles of them) end with is its site name, taken off its titles for
// display; another host's titles, a suffix a few titles share, a title
// that is only the name and one that ends otherwise stay whole.
func TestStrip(t *testing.T) {
	var l Learner
	for _, title := range []string{"Main Page - Intranet Wiki", "VPN setup - Intranet Wiki", "Printers - Intranet Wiki",
		"Talk:VPN setup - Intranet Wiki", "Recent changes"} {
		l.Add("http://wiki.intra/index.php/"+title, title)
	}
	for _, title := range []string{"os — Miscellaneous operating system interfaces — Python 3.11 documentation",
		"re — Regular expression operations — Python 3.11 documentation", "Glossary — Python 3.11 documentation"} {
		l.Add("https://docs.intra:8443/py/"+title, title)
	}
	for _, title := range []string{"Minutes - March", "Minutes - April", "Budget | Finance", "Holidays | HR", "Canteen"} {
		l.Add("http://news.intra/"+title, title)
	}
	n := l.Names()
	for _, c := range []struct{ url, title, want string }{
		{"http://wiki.intra/index.php/VPN", "VPN setup - Intranet Wiki", "VPN setup"},
		{"http://WIKI.intra/x", "Printers - Intranet Wiki", "Printers"},
		{"http://wiki.intra/x", "Recent changes", "Recent changes"},
		{"http://wiki.intra/x", " - Intranet Wiki", " - Intranet Wiki"},
		{"http://wiki.intra/x", "Intranet Wiki", "Intranet Wiki"},
		{"http://other.intra/x", "VPN setup - Intranet Wiki", "VPN setup - Intranet Wiki"},
		{"https://docs.intra:8443/py/os", "os — Miscellaneous operating system interfaces — Python 3.11 documentation", "os — Miscellaneous operating system interfaces"},
		{"http://news.intra/m", "Minutes - March", "Minutes - March"},
		{"http://news.intra/b", "Budget | Finance", "Budget | Finance"},
		{"::bad", "A - B", "A - B"},
	} {
		if got := n.Strip(c.url, c.title); got != c.want {
			t.Errorf("Strip(%s, %q) = %q, want %q", c.url, c.title, got, c.want)
		}
	}
	if got := (*Names)(nil).Strip("http://wiki.intra/x", "VPN setup - Intranet Wiki"); got != "VPN setup - Intranet Wiki" {
		t.Errorf("nil Names stripped: %q", got)
	}
}
