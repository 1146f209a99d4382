package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/doppel-search/doppel/crawler"
	"github.com/doppel-search/doppel/crawler/login"
	"github.com/doppel-search/doppel/crawler/share"
	"github.com/doppel-search/doppel/internal/settings"
)

// crawlFlags are the flags of doppel crawl: those of crawler.Options,
// declared by its fields' tags (package internal/settings), and those of
// the command itself.
type crawlFlags struct {
	settings    *settings.Flags // crawler.Options's flags
	data        string
	config      string
	printConfig bool
	serveAddr   string
	once        bool
	compact     bool
	netrc       string
	login       string
	profiles    profileFlags
	gc          gcFlags
	identity    func() (identity, error) // reads the identity flags
	stderr      io.Writer                // where warnings go
}

// newCrawlFlags defines the flags of doppel crawl, with its usage message
// on stderr.
func newCrawlFlags(stderr io.Writer) (*flag.FlagSet, *crawlFlags) {
	fs := flag.NewFlagSet("crawl", flag.ContinueOnError)
	f := &crawlFlags{stderr: stderr, settings: settings.Register[crawler.Options](fs)}
	fs.StringVar(&f.data, "data", "", "data `directory` for the frontier, page records and index (required)")
	fs.StringVar(&f.config, "config", "", "JSON configuration `file` (flags override it)")
	fs.BoolVar(&f.printConfig, "print-config", false, "print the settings the crawl would run with (defaults, then --config, then the flags) as a configuration file, and exit without crawling")
	fs.StringVar(&f.serveAddr, "serve", "", "also serve the search UI and API on this `address` while crawling")
	fs.StringVar(&f.netrc, "netrc", "", "netrc `file` of Basic or NTLM credentials by host (machine HOST login USER password PW), readable by its owner only; never stored")
	fs.StringVar(&f.login, "login", "", "JSON `file` of logins by URL prefix — forms, headers, credentials, access groups — with secrets as ${ENV_VAR}; never stored")
	fs.BoolVar(&f.once, "once", false, "one pass: crawl what is new and what is due, then stop (default: keep the crawl fresh until stopped)")
	fs.BoolVar(&f.compact, "compact", true, "merge the index's segments when a kept crawl is idle, and after a pass (--once) while --serve serves it; a pass alone leaves them to doppel compact, --compact=false leaves them always")
	f.profiles.define(fs)
	f.gc.define(fs)
	f.identity = identityFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: doppel crawl --seed URL [--seed URL…] --data DIR [flags]\n"+
			"       doppel crawl --data DIR [--max-pages N] [--once]   (go on with the saved options)\n\n"+
			"Crawls the seeds' hosts, deduplicates and indexes into DIR, then keeps the index fresh: each\n"+
			"page is fetched again when its schedule says it is due (conditional GET; changes re-indexed,\n"+
			"deleted pages removed) and the sitemaps are read again, until Ctrl-C (SIGINT) or SIGTERM, which\n"+
			"stop resumably (exit status 0). With --once it stops when nothing is left to fetch now: exit\n"+
			"status 0 done, 3 stopped at the page budget (--max-pages: requests, not pages kept) with URLs\n"+
			"still queued, 130 interrupted (run the same command again to resume). Progress on stderr, a\n"+
			"summary on stdout. Giving the seeds again on a DIR with a crawl goes on with the new options.\n"+
			"Seeds may be http(s) URLs, local folders (file:///srv/share/) and SMB shares\n"+
			"(smb://host/share/folder/: a guest session, or DOPPEL_SMB_USER, DOPPEL_SMB_PASSWORD and\n"+
			"DOPPEL_SMB_DOMAIN from the environment, never stored).\n"+
			"Sites behind a login: --netrc FILE (Basic or NTLM, as the server asks) and --login FILE (login\n"+
			"forms, bearer headers, access groups; secrets as ${ENV_VAR}); pass them again when resuming.\n"+
			"Credentials in a seed URL (http://user:password@host/) are used for its host and never stored,\n"+
			"but every user of this machine can read a command line (ps, /proc/PID/cmdline): doppel warns,\n"+
			"and --netrc or --login is the place for a password.\n"+
			"Exit status 1: error, 2: usage.\n\nFlags:\n")
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nThe configuration file (--config) is JSON: the fields of crawler.Options by their json tags,\n"+
			"durations as Go duration strings, every field optional (absent: the default; \"delay\": \"0s\":\n"+
			"none), unknown fields are errors; crawl.json in the data directory has the same format, and\n"+
			"--print-config prints a crawl's. Complete example:\n%s\n", crawler.ExampleConfig)
	}
	return fs, f
}

// options returns the crawl options: those of the configuration file, if
// any, overridden by the flags set on the command line (fs, parsed).
func (f *crawlFlags) options(fs *flag.FlagSet) (crawler.Options, error) {
	var opts crawler.Options
	if f.config != "" {
		var err error
		if opts, err = loadConfig(f.config); err != nil {
			return crawler.Options{}, err
		}
	}
	if err := f.settings.Apply(&opts); err != nil {
		return crawler.Options{}, err
	}
	warnSeedPasswords(f.stderr, fs.Name(), opts.Seeds)
	if user := os.Getenv("DOPPEL_SMB_USER"); user != "" { // never a flag or a file: kept out of crawl.json and ps
		opts.SMB = &share.Transport{User: user, Password: os.Getenv("DOPPEL_SMB_PASSWORD"), Domain: os.Getenv("DOPPEL_SMB_DOMAIN")}
	}
	logins, err := f.logins()
	if err != nil {
		return crawler.Options{}, err
	}
	opts.Logins = logins
	return opts, nil
}

// warnSeedPasswords warns on w, once per seed, that a seed URL holds a
// password (http://user:password@host/): the crawl takes it out of the
// URL before anything is stored or shown, but on the command line every
// user of the machine reads it (ps, /proc/PID/cmdline), and in a
// configuration file whoever may read the file. The warning shows the
// seed redacted (user:xxxxx@host) and points to --netrc and --login.
func warnSeedPasswords(w io.Writer, command string, seeds []string) {
	for _, s := range seeds {
		u, err := url.Parse(s)
		if err != nil || u.User == nil {
			continue
		}
		if _, ok := u.User.Password(); !ok {
			continue
		}
		fmt.Fprintf(w, "doppel %s: warning: the seed %s holds a password, which every user of this machine can read\n"+
			"  on the command line (ps, /proc/PID/cmdline) and whoever can read a configuration file in it; give it\n"+
			"  in a --netrc file (machine %s login %s password …, readable by its owner only) or a --login\n"+
			"  file (\"password\": \"${ENV_VAR}\") instead\n", command, u.Redacted(), u.Hostname(), u.User.Username())
	}
}

// logins reads --netrc and --login, nil if neither is given.
func (f *crawlFlags) logins() (*login.Set, error) {
	if f.netrc == "" && f.login == "" {
		return nil, nil
	}
	set := &login.Set{}
	if f.netrc != "" {
		if err := set.ReadNetrc(f.netrc); err != nil {
			return nil, err
		}
	}
	if f.login != "" {
		if err := set.ReadFile(f.login); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// checkCrawlCounts reports errUsage, with a message on stderr, if an int
// flag set on the command line (fs, parsed) is below 1: every one is a
// count.
func checkCrawlCounts(fs *flag.FlagSet, stderr io.Writer) error {
	var bad []string
	fs.Visit(func(f *flag.Flag) {
		if g, ok := f.Value.(flag.Getter); ok {
			if n, ok := g.Get().(int); ok && n < 1 { // every int flag is a count
				bad = append(bad, "--"+f.Name)
			}
		}
	})
	if len(bad) > 0 {
		fmt.Fprintf(stderr, "doppel crawl: %s must be at least 1\n", strings.Join(bad, ", "))
		return errUsage
	}
	return nil
}

// serveFlags are the flags of doppel crawl that only apply to what
// --serve serves.
var serveFlags = []string{"admin-addr", "admin-groups", "groups-header", "trusted-proxies", "demo-users", "demo-users-anywhere"}

// checkServeFlags reports errUsage, with a message on stderr, if the
// command line (fs, parsed) sets a flag of what --serve serves without
// --serve (serveAddr): it would be silently ignored.
func checkServeFlags(fs *flag.FlagSet, serveAddr string, stderr io.Writer) error {
	if serveAddr != "" {
		return nil
	}
	var set []string
	fs.Visit(func(f *flag.Flag) {
		if slices.Contains(serveFlags, f.Name) {
			set = append(set, "--"+f.Name)
		}
	})
	if len(set) > 0 {
		fmt.Fprintf(stderr, "doppel crawl: %s only applies with --serve ADDR (without it the crawl serves nothing)\n", strings.Join(set, ", "))
		return errUsage
	}
	return nil
}

// checkResumeFlags reports errUsage, with a message on stderr, if the
// command line (fs, parsed) resuming the crawl saved in data sets a flag
// other than those a resumed crawl heeds. Resuming, crawler.Open uses the
// saved options and only MaxPages from the given ones: anything else is
// refused rather than silently ignored.
func checkResumeFlags(fs *flag.FlagSet, data string, stderr io.Writer) error {
	var ignored []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "data", "max-pages", "serve", "once", "compact", "netrc", "login", "cpuprofile", "memprofile", "trace", "groups-header", "trusted-proxies", "demo-users", "admin-groups", "admin-addr":
		default:
			ignored = append(ignored, "--"+f.Name)
		}
	})
	if len(ignored) > 0 {
		fmt.Fprintf(stderr, "doppel crawl: without --seed (on the command line or in the config file), crawl resumes the crawl\n"+
			"saved in %s with its saved options, which only --max-pages may change: %s would be ignored.\n"+
			"Give the seeds to start a crawl, or to go on with the crawl in %s with new options.\n",
			data, strings.Join(ignored, ", "), data)
		return errUsage
	}
	return nil
}

// inputs names the files a crawl reads — its configuration and login
// files — which no output (a profile) may replace.
func (f *crawlFlags) inputs() []namedPath {
	return []namedPath{{"--config", f.config}, {"--netrc", f.netrc}, {"--login", f.login}}
}
