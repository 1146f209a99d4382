package urlnorm

import (
	"errors"
	"net/url"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"HTTP://Intra.Example.COM/a", "http://intra.example.com/a"},
		{"http://h", "http://h/"},
		{"http://h?", "http://h/"},
		{"http://h/#frag", "http://h/"},
		{"http://h/a#frag?x=1", "http://h/a"},
		{"http://h:80/a", "http://h/a"},
		{"https://h:443/a", "https://h/a"},
		{"http://h:443/a", "http://h:443/a"},
		{"https://h:80/a", "https://h:80/a"},
		{"http://h:8080/a", "http://h:8080/a"},
		{"http://h:/a", "http://h/a"},
		{"http://[::1]:80/a", "http://[::1]/a"},
		{"http://[::1]:8080/a", "http://[::1]:8080/a"},
		{"http://h/a/./b/../c", "http://h/a/c"},
		{"http://h/a/b/..", "http://h/a/"},
		{"http://h/a/b/.", "http://h/a/b/"},
		{"http://h/../../a", "http://h/a"},
		{"http://h/a//b", "http://h/a//b"},
		{"http://h/a%20b", "http://h/a%20b"},
		{"http://h/a b", "http://h/a%20b"},
		{"http://h/?b=2&a=1", "http://h/?a=1&b=2"},
		{"http://h/?a=2&a=1&a=10", "http://h/?a=1&a=10&a=2"},
		{"http://h/?q=a+b", "http://h/?q=a+b"},
		{"http://h/?q=a%20b", "http://h/?q=a+b"},
		{"http://h/?flag&a=1", "http://h/?a=1&flag"},
		{"http://h/?flag=&flag", "http://h/?flag&flag="},
		{"http://h/?&&a=1&&", "http://h/?a=1"},
		{"http://h/?utm_source=x&id=3&UTM_Medium=y", "http://h/?id=3"},
		{"http://h/?SessionID=1&sid=2&PHPSESSID=3&gclid=4&fbclid=5&jsessionid=6", "http://h/"},
		{"http://h/?utm%5Fsource=x&p=1", "http://h/?p=1"},
		{"http://h/?sidebar=1", "http://h/?sidebar=1"},
		{"http://h/index.jsp;jsessionid=ABC123?x=1", "http://h/index.jsp?x=1"},
		{"http://h/a;JSESSIONID=1/b", "http://h/a/b"},
		{"http://h/a;v=1;jsessionid=2;w=3", "http://h/a;v=1;w=3"},
		{"http://h/.;jsessionid=2/b", "http://h/b"},
		{"http://h/?bad=%zz&a=1", "http://h/?a=1&bad=%zz"},
		// RFC 3986: reserved characters keep the form they were linked with.
		{"http://h/dir/?C=N;O=D", "http://h/dir/?C=N;O=D"},
		{"http://h/dir/?C=N%3BO%3DD", "http://h/dir/?C=N%3BO%3DD"},
		{"http://h/?q=a,b&r=x:y@z/w", "http://h/?q=a,b&r=x:y@z/w"},
		{"http://h/?f=(a)*!$'", "http://h/?f=(a)*!$'"},
		{"http://h/?q=a%2Bb&r=1+2", "http://h/?q=a%2Bb&r=1+2"},
		{"http://h/?q=a%2cb", "http://h/?q=a%2Cb"},
		{"http://h/?q=%7Euser%2Dx", "http://h/?q=~user-x"},
		{"http://h/?q=a b", "http://h/?q=a+b"},
		{"http://h/?q=\"<>|", "http://h/?q=%22%3C%3E%7C"},
		{"http://h/?q=caf\u00e9", "http://h/?q=caf%C3%A9"},
		{"http://h/?q=caf%c3%a9", "http://h/?q=caf%C3%A9"},
		{"http://h/?a=1%", "http://h/?a=1%"},
		// Session ids by their shape.
		{"http://h/p?osCsid=a3f9c2e81b7d4f60a9e2&id=4", "http://h/p?id=4"},
		{"http://h/p?session_id=0123456789abcdefXY&id=4", "http://h/p?id=4"},
		{"http://h/p?sessionmode=compact", "http://h/p?sessionmode=compact"},
		{"http://h/p?docid=0123456789abcdef0123", "http://h/p?docid=0123456789abcdef0123"},
		{"http://user:pw@H/a", "http://h/a"},
		{"  http://h/a  ", "http://h/a"},
	}
	for _, tc := range tests {
		got, err := Normalize(tc.in, Options{})
		if err != nil {
			t.Errorf("Normalize(%q): %v", tc.in, err)
			continue
		}
		if got != tc.want {
			t.Errorf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		again, err := Normalize(got, Options{})
		if err != nil || again != got {
			t.Errorf("not idempotent: Normalize(%q) = %q, %v", got, again, err)
		}
	}
}

func TestNormalizeErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
	}{
		{"ftp://h/a", ErrScheme},
		{"mailto:a@b", ErrScheme},
		{"javascript:void(0)", ErrScheme},
		{"/relative/path", ErrInvalid},
		{"", ErrInvalid},
		{"http:///nohost", ErrInvalid},
		{"http:opaque", ErrInvalid},
		{"http://h/%zz", ErrInvalid},
		{"http://[::1", ErrInvalid},
	}
	for _, tc := range tests {
		got, err := Normalize(tc.in, Options{})
		if !errors.Is(err, tc.want) {
			t.Errorf("Normalize(%q) = %q, %v; want error %v", tc.in, got, err, tc.want)
		}
	}
}

func TestDropParamsOption(t *testing.T) {
	tests := []struct {
		drop     []string
		in, want string
	}{
		{nil, "http://h/?utm_x=1&ref=2", "http://h/?ref=2"},
		{[]string{}, "http://h/?utm_x=1&ref=2", "http://h/?ref=2&utm_x=1"},
		{[]string{"REF"}, "http://h/?utm_x=1&ref=2", "http://h/?utm_x=1"},
		{[]string{"r*"}, "http://h/p;rid=1?ref=2&rx=3&a=4", "http://h/p?a=4"},
		{[]string{"*"}, "http://h/?a=1&b=2", "http://h/"},
	}
	for _, tc := range tests {
		got, err := Normalize(tc.in, Options{DropParams: tc.drop})
		if err != nil || got != tc.want {
			t.Errorf("Normalize(%q, %v) = %q, %v; want %q", tc.in, tc.drop, got, err, tc.want)
		}
	}
}

func TestResolve(t *testing.T) {
	base, _ := url.Parse("http://Intra.Example/docs/manual/index.html?x=1")
	tests := []struct {
		href, want string
		err        error
	}{
		{"page2.html", "http://intra.example/docs/manual/page2.html", nil},
		{"../faq.html#top", "http://intra.example/docs/faq.html", nil},
		{"/root?utm_source=mail&b=1&a=2", "http://intra.example/root?a=2&b=1", nil},
		{"?p=2", "http://intra.example/docs/manual/index.html?p=2", nil},
		{"#section", "http://intra.example/docs/manual/index.html?x=1", nil},
		{"//other.example:80/x", "http://other.example/x", nil},
		{"  https://H/y  ", "https://h/y", nil},
		{"mailto:someone@example.com", "", ErrScheme},
		{"javascript:alert(1)", "", ErrScheme},
		{"http://h/%zz", "", ErrInvalid},
	}
	for _, tc := range tests {
		got, err := Resolve(base, tc.href, Options{})
		if !errors.Is(err, tc.err) || got != tc.want {
			t.Errorf("Resolve(%q) = %q, %v; want %q, %v", tc.href, got, err, tc.want, tc.err)
		}
	}
	if _, err := Resolve(nil, "relative.html", Options{}); !errors.Is(err, ErrInvalid) {
		t.Errorf("Resolve(nil, relative) error = %v, want ErrInvalid", err)
	}
	if got, err := Resolve(nil, "HTTP://h/a/../b", Options{}); err != nil || got != "http://h/b" {
		t.Errorf("Resolve(nil, absolute) = %q, %v", got, err)
	}
}

func TestTemplate(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h/cal/2026/03/05?view=day", "h/cal/{n}/{n}/{n}?view=day"},
		{"https://Intra.Example/cal/2026/03/05?view=day&id=7", "intra.example/cal/{n}/{n}/{n}?id={n}&view=day"},
		{"http://h/manual/page-2.html", "h/manual/{n}"},
		{"http://h/manual/intro.html", "h/manual/intro.html"},
		{"http://h", "h/"},
		{"http://h/", "h/"},
		{"http://h:8080/a1/b", "h:8080/{n}/b"},
		{"http://h/a?z=1&a=x&flag", "h/a?a=x&flag&z={n}"},
		{"http://h/a#frag1", "h/a"},
		{"http://h/a?p2=x", "h/a?p2=x"},
		{"http://h/a?tok=abcdefabcdefabcd", "h/a?tok={n}"},
		{"http://h/a?view=abcdefabcdefabc", "h/a?view=abcdefabcdefabc"},
		{"%zz", "%zz"},
	}
	for _, tc := range tests {
		if got := Template(tc.in); got != tc.want {
			t.Errorf("Template(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Family property: URLs differing only in numbers share a template.
	if Template("http://h/cal/2026/03/05?view=day") != Template("http://h/cal/1999/12/31?view=day") {
		t.Error("calendar days should share a template")
	}
	if Template("http://h/cal/2026?view=day") == Template("http://h/cal/2026?view=week") {
		t.Error("different non-numeric query values should not share a template")
	}
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"http://h/a/./b/../c?b=2&a=1#x", "HTTPS://H:443/;jsessionid=1?utm_a=1",
		"http://[::1]:80/%20?q=a+b", "http://h/?bad=%zz", "http://u@h/a//b/..", "ftp://x",
		"http://h/a/%2e%2E/%7e;jsessionid=1", "file:///a/%2e%2e/b%5c..%5cc", `smb://h/s/..\x/%2f`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		_ = Template(raw)
		n, err := Normalize(raw, Options{})
		if err != nil {
			return
		}
		n2, err := Normalize(n, Options{})
		if err != nil {
			t.Fatalf("Normalize(%q) = %q, which does not normalize: %v", raw, n, err)
		}
		if n2 != n {
			t.Fatalf("not idempotent: %q -> %q -> %q", raw, n, n2)
		}
		if Template(n) != Template(n2) {
			t.Fatalf("template of %q unstable", n)
		}
	})
}

// TestNormalizeDotSegments: a dot segment however it is spelled —
// percent-encoded in either case, half encoded, behind an encoded slash
// or a backslash in a file or smb URL — is removed, so no spelling of
// ".." keeps a URL under a folder it leaves.
func TestNormalizeDotSegments(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h/a/%2e%2e/b", "http://h/b"},
		{"http://h/a/%2E%2E/b", "http://h/b"},
		{"http://h/a/.%2e/b", "http://h/b"},
		{"http://h/a/%2e/b", "http://h/a/b"},
		{"http://h/a/%2e%2e", "http://h/"},
		{"http://h/%7euser/%41", "http://h/~user/A"},
		{"http://h/a%2fb", "http://h/a%2Fb"},       // an encoded slash is not a slash on the web
		{"http://h/a/..%2fb", "http://h/a/..%2Fb"}, // nor a dot segment: see DecodedPath
		{"http://h/a/%2e%2e;jsessionid=1/b", "http://h/b"},
		{"file:///srv/share/%2e%2e/%2e%2e/etc/passwd", "file:///etc/passwd"},
		{"file:///srv/share/..%2f..%2fetc%2fpasswd", "file:///etc/passwd"},
		{"file:///srv/share/..%5C..%5Cetc%5Cpasswd", "file:///etc/passwd"},
		{`file:///srv/share/..\..\etc\passwd`, "file:///etc/passwd"},
		{"file:///srv/share/.%2E/x", "file:///srv/x"},
		{"file:///srv/share/a%20b%25c", "file:///srv/share/a%20b%25c"},
		{"smb://h/docs/reports/%2e%2e/hr/", "smb://h/docs/hr/"},
		{"smb://h/docs/reports/..%2fhr%2f", "smb://h/docs/hr/"},
		{`smb://h/docs/reports/..\hr\x.txt`, "smb://h/docs/hr/x.txt"},
	}
	for _, tc := range tests {
		got, err := Normalize(tc.in, Options{})
		if err != nil || got != tc.want {
			t.Errorf("Normalize(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			continue
		}
		if again, err := Normalize(got, Options{}); err != nil || again != got {
			t.Errorf("not idempotent: Normalize(%q) = %q, %v", got, again, err)
		}
	}
}

func TestDecodedPath(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h/docs/a", "/docs/a"},
		{"http://h", "/"},
		{"http://h/docs/..%2F..%2Fadmin", "/admin"},
		{`http://h/docs/..%5Cadmin`, "/admin"},
		{"http://h/docs/%2e%2e/admin/", "/admin/"},
		{"http://h/docs/caf%C3%A9/", "/docs/café/"},
	}
	for _, tc := range tests {
		u, err := url.Parse(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := DecodedPath(u); got != tc.want {
			t.Errorf("DecodedPath(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestShape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://w/index.php/Filecmp", "w/index.php/*"},
		{"http://w/index.php/Os.path", "w/index.php/*.path"},
		{"http://w/index.php/Talk:Filecmp", "w/index.php/Talk:*"},
		{"http://w/index.php/Special:WhatLinksHere/Filecmp", "w/index.php/Special:WhatLinksHere/*"},
		{"http://w/index.php?title=Filecmp", "w/*.php?title=*"},
		{"http://w/index.php?title=Filecmp&action=edit", "w/*.php?action=*&title=*"},
		{"http://w/index.php?title=Os&action=history", "w/*.php?action=*&title=*"},
		{"http://w/index.php?title=Os&action=edit&section=3", "w/*.php?action=*&section=*&title=*"},
		{"http://w/index.php?title=Special:WhatLinksHere/Os", "w/*.php?title=Special:WhatLinksHere/*"},
		{"http://w/index.php?title=Special:UserLogin&returnto=Os", "w/*.php?returnto=*&title=Special:*"},
		{"http://h/doc/python3/html/library/os.html", "h/doc/{n}/html/library/*.html"},
		{"http://h/doc/pkg/", "h/doc/pkg/"},
		{"http://h/doc/pkg/?C=N;O=D", "h/doc/pkg/?C=*&O=*"},
		{"http://h/r/2026/report-7.pdf", "h/r/{n}/*.pdf"},
		{"http://h/", "h/"},
	}
	for _, tc := range tests {
		if got := Shape(tc.in); got != tc.want {
			t.Errorf("Shape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTypeShape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://H/doc/bash/changelog.Debian.gz", "h/…/*.gz"},
		{"http://h/doc/zlib1g/changelog.gz", "h/…/*.gz"},
		{"http://h/doc/a/index.html", "h/…/*.html"},
		{"http://h/doc/a/", ""},
		{"http://h/doc/a/README", ""},
		{"http://h/index.php?title=X", ""},
		{"http://h/index.php/Talk:X", ""},
	} {
		if got := TypeShape(tc.in); got != tc.want {
			t.Errorf("TypeShape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestView(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://h/doc/?C=N;O=D", ViewSort},
		{"http://h/doc/?C=M;O=A", ViewSort},
		{"http://h/doc/?C=S&O=A&V=1", ViewSort},
		{"http://h/doc/?O=D", ViewSort},
		{"http://h/doc/?C=N;O=D;P=*.txt", ViewSort},
		{"http://h/doc/?C=X;O=D", ""},
		{"http://h/doc/?C=N;O=D;page=2", ""},
		{"http://h/page?c=n", ""},
		{"http://w/index.php?title=Os&printable=yes", ViewPrint},
		{"http://w/index.php?title=Os&printable=no", ""},
		{"http://h/a?print=1", ViewPrint},
		{"http://h/a?print", ViewPrint},
		{"http://h/a?format=print", ViewPrint},
		{"http://h/a?view=Printable", ViewPrint},
		{"http://h/post?share=twitter&nb=1", ViewShare},
		{"http://h/a?action=share", ViewShare},
		{"http://w/index.php?title=Os&feed=atom&action=history", ViewFeed},
		{"http://h/blog/feed/", ViewFeed},
		{"http://h/news.rss", ViewFeed},
		{"http://h/a?format=atom", ViewFeed},
		{"http://h/a?type=RSS2", ViewFeed},
		{"http://h/a?feedformat=x", ViewFeed},
		{"http://h/a?mode=print", ViewPrint},
		{"http://h/a?mode=rss", ""},
		{"http://h/a?action=atom", ViewFeed},
		{"http://h/feedback/", ""},
		{"http://h/a?format=pdf", ""},
		{"http://h/a?action=edit", ""},
		{"http://h/a", ""},
	}
	for _, tc := range tests {
		got, ok := View(tc.in)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("View(%q) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
}
