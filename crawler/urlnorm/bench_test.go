package urlnorm

import (
	"fmt"
	"testing"
)

var benchURLs = map[string]string{
	"simple":   "http://intra.example/docs/manual/index.html",
	"messy":    "HTTP://Intra.Example:80/docs/./v2/../guide.html;jsessionid=42?utm_source=mail&utm_medium=x&b=2&a=1&q=a+b#top",
	"calendar": "https://intra.example/cal/2026/03/05?view=day&id=77&lang=en",
}

func BenchmarkNormalize(b *testing.B) {
	for _, name := range []string{"simple", "messy", "calendar"} {
		u := benchURLs[name]
		b.Run(fmt.Sprintf("url=%s", name), func(b *testing.B) {
			b.SetBytes(int64(len(u)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Normalize(u, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "urls/s")
		})
	}
}

func BenchmarkTemplate(b *testing.B) {
	for _, name := range []string{"simple", "calendar"} {
		u := benchURLs[name]
		b.Run(fmt.Sprintf("url=%s", name), func(b *testing.B) {
			b.SetBytes(int64(len(u)))
			b.ReportAllocs()
			for b.Loop() {
				Template(u)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "urls/s")
		})
	}
}
