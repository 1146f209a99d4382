package crawler

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/lang"
	"github.com/doppel-search/doppel/internal/settings"
)

// ExampleConfig is a complete configuration file: the fields of Options by
// their json tags, durations as Go duration strings. Every field is optional
// except seeds; an absent or zero field takes the default documented on
// Options, except "delay": "0s", which means no delay. A crawl saves the
// options it runs with in its data directory (crawl.json) in this format.
const ExampleConfig = `{
  "seeds": ["https://intranet.example/"],
  "allowed_hosts": ["intranet.example", "wiki.intranet.example"],
  "allowed_prefixes": [],
  "exclude": ["[?&]action=(edit|history|info)", "/Special:"],
  "fetch_views": false,
  "follow_links_outside": false,
  "max_depth": 10,
  "max_pages": 100000,
  "ignore_robots": false,
  "delay": "100ms",
  "parallelism": 2,
  "host_parallelism": 2,
  "timeout": "10s",
  "max_retries": 3,
  "retry_backoff": "10s",
  "refresh_interval": "10s",
  "max_body_bytes": 5242880,
  "max_document_bytes": 52428800,
  "max_links_per_page": 10000,
  "prefer_documents": false,
  "user_agent": "DoppelBot/1.0",
  "max_redirects": 5,
  "revisit": {"policy": "adaptive", "budget": 10, "min_interval": "1h", "max_interval": "720h",
              "prior": "24h", "copy_factor": 4, "trivial_bits": 3, "sitemaps": "1h"},
  "traps": {"max_per_template": 0, "max_duplicates_per_template": 20,
            "max_segments": 12, "max_repeats": 3, "max_url_length": 1024,
            "demote_useless_after": 5, "max_useless_per_family": 20},
  "drop_params": ["utm_*", "sessionid", "jsessionid", "phpsessid", "sid", "gclid", "fbclid"],
  "policy": "skip",
  "similarity": "resemblance",
  "language": "en",
  "groups": [{"prefix": "https://intranet.example/hr/", "groups": ["hr"]}],
  "no_dedup": false
}`

// MarshalJSON writes o in the configuration file's format
// (ExampleConfig): the fields with a json tag, durations as Go duration
// strings (see package internal/settings).
func (o Options) MarshalJSON() ([]byte, error) {
	return settings.Marshal(o)
}

// UnmarshalJSON reads the configuration file's format as ParseConfig does.
func (o *Options) UnmarshalJSON(data []byte) error {
	opts, err := ParseConfig(data)
	if err != nil {
		return err
	}
	*o = opts
	return nil
}

// ParseConfig reads a configuration file (the format of ExampleConfig)
// into Options, whose json tags are its schema. Unknown fields are
// errors, so a typo does not silently fall back to a default; so is
// anything after the object. Errors name the field. The options are not
// validated: see Options.Validate.
func ParseConfig(data []byte) (Options, error) {
	var o Options
	if err := settings.Unmarshal(data, &o); err != nil {
		return Options{}, err
	}
	return o, nil
}

// Validate reports every invalid option, with the field names of the
// configuration file: seeds that are not absolute http or https URLs,
// negative counts and durations (a negative Delay means none and is
// valid), an unknown policy or similarity, group rules without a prefix.
// A password in a seed is never repeated in an error.
// Open validates before it writes anything, so bad options never reach a
// data directory.
func (o Options) Validate() error {
	var errs []error
	for _, s := range o.Seeds {
		if !validSeed(s) {
			errs = append(errs, fmt.Errorf("seeds: %q is not an absolute http, https, file or smb URL (smb://host/share/…)", redacted(s)))
		}
	}
	errs = append(errs, o.negatives()...)
	if err := o.Traps.Validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := admit.CompileExclude(o.Exclude); err != nil {
		errs = append(errs, fmt.Errorf("exclude: %w", err))
	}
	if _, err := indexer.ParsePolicy(o.Policy.String()); err != nil {
		errs = append(errs, fmt.Errorf("policy: %w", err))
	}
	errs = append(errs, o.choices()...)
	if err := validateShare(o); err != nil {
		errs = append(errs, err)
	}
	for i, g := range o.Groups {
		if g.Prefix == "" {
			errs = append(errs, fmt.Errorf("groups[%d]: a rule needs a prefix", i))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("crawler: invalid options: %w", err)
	}
	return nil
}

// validSeed reports whether s is an absolute http or https URL, a file
// URL of an absolute local path, or an smb URL of a share.
func validSeed(s string) bool {
	u, err := url.Parse(s)
	switch {
	case err == nil && u.Scheme == "file" && strings.HasPrefix(u.Path, "/") && (u.Host == "" || u.Host == "localhost"):
	case err == nil && u.Scheme == "smb" && u.Host != "" && len(strings.Trim(u.Path, "/")) > 0:
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return false
	}
	return true
}

// negatives reports the counts and durations that are negative.
func (o Options) negatives() []error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{{"max_depth", o.MaxDepth}, {"max_pages", o.MaxPages}, {"parallelism", o.Parallelism},
		{"host_parallelism", o.HostParallelism}, {"max_retries", o.MaxRetries},
		{"max_body_bytes", o.MaxBodyBytes}, {"max_document_bytes", o.MaxDocumentBytes}, {"max_redirects", o.MaxRedirects}, {"revisit.trivial_bits", o.Revisit.TrivialBits}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, not %d", f.name, f.v))
		}
	}
	for _, f := range []struct {
		name string
		v    time.Duration
	}{{"timeout", o.Timeout}, {"refresh_interval", o.RefreshInterval}, {"retry_backoff", o.RetryBackoff},
		{"revisit.min_interval", o.Revisit.MinInterval}, {"revisit.max_interval", o.Revisit.MaxInterval}, {"revisit.prior", o.Revisit.Prior}} {
		if f.v < 0 {
			errs = append(errs, fmt.Errorf("%s must not be negative, not %v", f.name, f.v))
		}
	}
	return errs
}

// choices reports the revisit policy, budget, similarity and language
// that are not among the valid ones.
func (o Options) choices() []error {
	var errs []error
	switch o.Revisit.Policy {
	case "", "adaptive", "uniform", "nutch":
	default:
		errs = append(errs, fmt.Errorf("revisit.policy: %q is not adaptive, uniform or nutch", o.Revisit.Policy))
	}
	if o.Revisit.Budget < 0 || o.Revisit.CopyFactor < 0 {
		errs = append(errs, errors.New("revisit.budget and revisit.copy_factor must not be negative"))
	}
	if o.Similarity != dedup.Resemblance && o.Similarity != dedup.Cosine {
		errs = append(errs, fmt.Errorf("similarity: unknown similarity %d", int(o.Similarity)))
	}
	if o.Language != "" && lang.Primary(o.Language) == "" {
		errs = append(errs, fmt.Errorf("language: %q is not a language tag (such as en or pt-BR)", o.Language))
	}
	return errs
}

// redacted returns raw with the password of its user information, if
// any, replaced by "xxxxx".
func redacted(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}
