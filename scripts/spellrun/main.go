// Command spellrun asks ranking.Searcher.Suggest, in process, for each
// line of its standard input (a query) over a crawl's data directory
// opened read-only, as doppel serve opens it, and prints one line per
// query: the suggestion ("" if none), the process's CPU time for it and
// its elapsed time, in microseconds, tab-separated. It is
// scripts/typo-check.py's --in-process: on a machine too loaded for the
// server's 2 s limit, spelling is measured with a longer deadline
// (-timeout), and its cost read as CPU time, which the load changes
// less.
//
//	echo pritner | go run ./scripts/spellrun -groups hr -lang en /tmp/crawl
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/internal/lang"
	"github.com/doppel-search/doppel/ranking"
)

func main() {
	groups := flag.String("groups", "", "comma-separated access groups of the user asking (default: anonymous)")
	timeout := flag.Duration("timeout", 5*time.Minute, "deadline of one suggestion")
	langs := flag.String("lang", "", "the languages the user reads, as an Accept-Language header (default: not known)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: spellrun [-groups G1,G2] [-lang en] [-timeout D] DATA_DIR < queries")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	v, err := crawler.OpenView(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	var gs []string
	if *groups != "" {
		gs = strings.Split(*groups, ",")
	}
	s := ranking.New(v.Store(), ranking.Options{Timeout: *timeout})
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for in.Scan() {
		start, cpu := time.Now(), cpuTime()
		got, err := s.SuggestIn(context.Background(), in.Text(), gs, lang.Accepted(*langs))
		if err != nil {
			log.Fatalf("%q: %v", in.Text(), err)
		}
		fmt.Fprintf(out, "%s\t%d\t%d\n", got, (cpuTime() - cpu).Microseconds(), time.Since(start).Microseconds())
		out.Flush()
	}
	if err := in.Err(); err != nil {
		log.Fatal(err)
	}
}

// cpuTime returns the CPU time the process has used, user and system; 0
// if it cannot be read. (A test rig's reader is for tests only.)
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
