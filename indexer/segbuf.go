package indexer

import zapv16 "github.com/blevesearch/zapx/v16"

// init stops zap (the segment format bleve writes) from sizing a new
// segment's buffer ahead by its estimate: the previous segment's bytes
// per document, times the documents of the new batch plus 100. The
// previous segment comes from a pool shared by every index of the
// process, so after one of a single large page (a page of 100,000
// links: about 8 MB) a batch of 20 small pages asked for 120 × 8 MB at
// once — the links bomb's crawl peaked at 1.1 GB in 3 of 10 runs,
// against 300 MB in the others, as the scheduler handed out the pool's
// entries (docs/measurements.md, "Trust: every decoder bounded (session
// 7)"). With the estimate at zero the buffer grows as the segment is
// written, to at most twice its size.
func init() { zapv16.NewSegmentBufferNumResultsFactor = 0 }
