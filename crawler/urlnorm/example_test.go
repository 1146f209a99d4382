package urlnorm_test

import (
	"fmt"
	"net/url"

	"github.com/doppel-search/doppel/crawler/urlnorm"
)

func ExampleNormalize() {
	u, err := urlnorm.Normalize("HTTP://Intra.Example:80/docs/./v2/../guide.html;jsessionid=42?utm_source=mail&b=2&a=1#top", urlnorm.Options{})
	fmt.Println(u, err)
	// Output: http://intra.example/docs/guide.html?a=1&b=2 <nil>
}

func ExampleResolve() {
	base, _ := url.Parse("https://intra.example/manual/ch1/index.html")
	u, _ := urlnorm.Resolve(base, "../ch2/print.html?sid=99", urlnorm.Options{})
	fmt.Println(u)
	_, err := urlnorm.Resolve(base, "mailto:help@intra.example", urlnorm.Options{})
	fmt.Println(err)
	// Output:
	// https://intra.example/manual/ch2/print.html
	// urlnorm: unsupported scheme (only http, https, file and smb): "mailto"
}

func ExampleTemplate() {
	fmt.Println(urlnorm.Template("https://intra.example/cal/2026/03/05?view=day"))
	fmt.Println(urlnorm.Template("https://intra.example/cal/2026/03/06?view=day"))
	// Output:
	// intra.example/cal/{n}/{n}/{n}?view=day
	// intra.example/cal/{n}/{n}/{n}?view=day
}
