package indexer

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/dedup/cluster"
)

// synthBody returns a ~2 KB body of pseudo-random words.
func synthBody(r *rand.Rand) string {
	var sb strings.Builder
	for sb.Len() < 2048 {
		fmt.Fprintf(&sb, "w%d ", r.IntN(5000))
	}
	return sb.String()[:2048]
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkAdd indexes synthetic 2 KB documents in clusters of three (a
// master and two near-duplicates) and reports docs/s and the on-disk size
// after Close. Use a fixed -benchtime=Nx to compare sizes across policies.
func BenchmarkAdd(b *testing.B) {
	for _, p := range []Policy{Skip, All} {
		b.Run("policy="+p.String(), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			docs := make([]Doc, b.N)
			for i := range docs {
				docs[i] = mkDoc(fmt.Sprintf("d%07d", i), synthBody(r))
			}
			dir := b.TempDir()
			x, err := Open(dir, Options{Policy: p})
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.SetBytes(2048)
			b.ResetTimer()
			start := time.Now()
			for i, d := range docs {
				master := d.ID
				if i%3 != 0 {
					master = docs[i-i%3].ID
				}
				res := dedup.Result{ID: d.ID, Cluster: cluster.ID(fmt.Sprint(i / 3)), Master: master, Duplicate: i%3 != 0}
				if err := x.Add(ctx, d, pl(res)); err != nil {
					b.Fatal(err)
				}
			}
			if err := x.Flush(ctx); err != nil {
				b.Fatal(err)
			}
			elapsed := time.Since(start)
			b.StopTimer()
			if err := x.Close(); err != nil {
				b.Fatal(err)
			}
			size := dirSize(b, dir)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "docs/s")
			b.ReportMetric(float64(size), "index-bytes")
			b.ReportMetric(float64(size)/float64(b.N), "bytes/doc")
		})
	}
}
