package crawler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/doppel-search/doppel/crawler/admit"
	"github.com/doppel-search/doppel/crawler/traps"
	"github.com/doppel-search/doppel/dedup"
	"github.com/doppel-search/doppel/indexer"
	"github.com/doppel-search/doppel/internal/lang"
)

// ExampleConfig is a complete configuration file: the fields of Options in
// snake_case, durations as Go duration strings. Every field is optional
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

// config is the configuration file's format.
type config struct {
	Seeds           []string         `json:"seeds"`
	AllowedHosts    []string         `json:"allowed_hosts"`
	AllowedPrefixes []string         `json:"allowed_prefixes"`
	Exclude         []string         `json:"exclude"`
	FetchViews      bool             `json:"fetch_views"`
	FollowOutside   bool             `json:"follow_links_outside"`
	MaxDepth        int              `json:"max_depth"`
	MaxPages        int              `json:"max_pages"`
	IgnoreRobots    bool             `json:"ignore_robots"`
	Delay           string           `json:"delay"`
	Parallelism     int              `json:"parallelism"`
	HostParallelism int              `json:"host_parallelism"`
	Timeout         string           `json:"timeout"`
	MaxRetries      int              `json:"max_retries"`
	RetryBackoff    string           `json:"retry_backoff"`
	Revisit         revisitConfig    `json:"revisit"`
	RefreshInterval string           `json:"refresh_interval"`
	MaxBodyBytes    int              `json:"max_body_bytes"`
	MaxDocBytes     int              `json:"max_document_bytes"`
	MaxLinks        int              `json:"max_links_per_page"`
	PreferDocuments bool             `json:"prefer_documents"`
	UserAgent       string           `json:"user_agent"`
	MaxRedirects    int              `json:"max_redirects"`
	Traps           trapsConfig      `json:"traps"`
	DropParams      []string         `json:"drop_params"`
	Policy          indexer.Policy   `json:"policy"`
	Similarity      dedup.Similarity `json:"similarity"`
	Language        string           `json:"language"`
	Groups          []GroupRule      `json:"groups"`
	NoDedup         bool             `json:"no_dedup"`
}

type revisitConfig struct {
	Policy      string  `json:"policy"`
	Budget      float64 `json:"budget"`
	MinInterval string  `json:"min_interval"`
	MaxInterval string  `json:"max_interval"`
	Prior       string  `json:"prior"`
	CopyFactor  float64 `json:"copy_factor"`
	TrivialBits int     `json:"trivial_bits"`
	Sitemaps    string  `json:"sitemaps"`
}

type trapsConfig struct {
	MaxPerTemplate           int `json:"max_per_template"`
	MaxDuplicatesPerTemplate int `json:"max_duplicates_per_template"`
	MaxSegments              int `json:"max_segments"`
	MaxRepeats               int `json:"max_repeats"`
	MaxURLLength             int `json:"max_url_length"`
	DemoteUselessAfter       int `json:"demote_useless_after"`
	MaxUselessPerFamily      int `json:"max_useless_per_family"`
}

// duration writes d as a Go duration string; "" for the zero value
// (the default), "0s" for none (negative).
func duration(d time.Duration) string {
	switch {
	case d == 0:
		return ""
	case d < 0:
		return "0s"
	}
	return d.String()
}

// MarshalJSON writes o in the configuration file's format (ExampleConfig).
// NoSync is not written.
func (o Options) MarshalJSON() ([]byte, error) {
	return json.Marshal(config{
		Seeds: o.Seeds, AllowedHosts: o.AllowedHosts, AllowedPrefixes: o.AllowedPrefixes, FollowOutside: o.FollowLinksOutside,
		Exclude: o.Exclude, FetchViews: o.FetchViews,
		MaxDepth: o.MaxDepth, MaxPages: o.MaxPages, IgnoreRobots: o.IgnoreRobots,
		Delay: duration(o.Delay), Parallelism: o.Parallelism, HostParallelism: o.HostParallelism, Timeout: duration(o.Timeout),
		MaxRetries: o.MaxRetries, RetryBackoff: duration(o.RetryBackoff),
		Revisit: revisitConfig{Policy: o.Revisit.Policy, Budget: o.Revisit.Budget, MinInterval: duration(o.Revisit.MinInterval),
			MaxInterval: duration(o.Revisit.MaxInterval), Prior: duration(o.Revisit.Prior), CopyFactor: o.Revisit.CopyFactor,
			TrivialBits: o.Revisit.TrivialBits, Sitemaps: duration(o.Revisit.Sitemaps)},
		RefreshInterval: duration(o.RefreshInterval), MaxBodyBytes: o.MaxBodyBytes, MaxDocBytes: o.MaxDocumentBytes, MaxLinks: o.MaxLinksPerPage,
		PreferDocuments: o.PreferDocuments, UserAgent: o.UserAgent,
		MaxRedirects: o.MaxRedirects,
		Traps: trapsConfig{MaxPerTemplate: o.Traps.MaxPerTemplate, MaxDuplicatesPerTemplate: o.Traps.MaxDuplicatesPerTemplate,
			MaxSegments: o.Traps.MaxSegments, MaxRepeats: o.Traps.MaxRepeats, MaxURLLength: o.Traps.MaxURLLength,
			DemoteUselessAfter: o.Traps.DemoteUselessAfter, MaxUselessPerFamily: o.Traps.MaxUselessPerFamily},
		DropParams: o.DropParams, Policy: o.Policy, Similarity: o.Similarity, Language: o.Language, Groups: o.Groups, NoDedup: o.NoDedup,
	})
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

// ParseConfig reads a configuration file (the format of ExampleConfig).
// Unknown fields are errors, so a typo does not silently fall back to a
// default; so is anything after the object. Errors name the field. The
// options are not validated: see Options.Validate.
func ParseConfig(data []byte) (Options, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c config
	if err := dec.Decode(&c); err != nil {
		return Options{}, decodeError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Options{}, errors.New("unexpected data after the JSON object")
	}
	parse := func(field, s string) (time.Duration, error) {
		if s == "" {
			return 0, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not a Go duration such as \"250ms\"", field, s)
		}
		return d, nil
	}
	delay, err := parse("delay", c.Delay)
	if err != nil {
		return Options{}, err
	}
	if delay == 0 && c.Delay != "" {
		delay = -1 // "delay": "0s" means none
	}
	timeout, err := parse("timeout", c.Timeout)
	if err != nil {
		return Options{}, err
	}
	refresh, err := parse("refresh_interval", c.RefreshInterval)
	if err != nil {
		return Options{}, err
	}
	backoff, err := parse("retry_backoff", c.RetryBackoff)
	if err != nil {
		return Options{}, err
	}
	rv := RevisitOptions{Policy: c.Revisit.Policy, Budget: c.Revisit.Budget, CopyFactor: c.Revisit.CopyFactor, TrivialBits: c.Revisit.TrivialBits}
	for _, d := range []struct {
		field, value string
		into         *time.Duration
	}{{"revisit.min_interval", c.Revisit.MinInterval, &rv.MinInterval}, {"revisit.max_interval", c.Revisit.MaxInterval, &rv.MaxInterval},
		{"revisit.prior", c.Revisit.Prior, &rv.Prior}, {"revisit.sitemaps", c.Revisit.Sitemaps, &rv.Sitemaps}} {
		if *d.into, err = parse(d.field, d.value); err != nil {
			return Options{}, err
		}
	}
	if rv.Sitemaps == 0 && c.Revisit.Sitemaps != "" {
		rv.Sitemaps = -1 // "0s": never
	}
	return Options{
		Seeds: c.Seeds, AllowedHosts: c.AllowedHosts, AllowedPrefixes: c.AllowedPrefixes, FollowLinksOutside: c.FollowOutside,
		Exclude: c.Exclude, FetchViews: c.FetchViews,
		MaxDepth: c.MaxDepth, MaxPages: c.MaxPages, IgnoreRobots: c.IgnoreRobots,
		Delay: delay, Parallelism: c.Parallelism, HostParallelism: c.HostParallelism, Timeout: timeout, RefreshInterval: refresh,
		MaxRetries: c.MaxRetries, RetryBackoff: backoff, Revisit: rv,
		MaxBodyBytes: c.MaxBodyBytes, MaxDocumentBytes: c.MaxDocBytes, MaxLinksPerPage: c.MaxLinks, PreferDocuments: c.PreferDocuments,
		UserAgent: c.UserAgent, MaxRedirects: c.MaxRedirects,
		Traps: traps.Options{MaxPerTemplate: c.Traps.MaxPerTemplate, MaxDuplicatesPerTemplate: c.Traps.MaxDuplicatesPerTemplate,
			MaxSegments: c.Traps.MaxSegments, MaxRepeats: c.Traps.MaxRepeats, MaxURLLength: c.Traps.MaxURLLength,
			DemoteUselessAfter: c.Traps.DemoteUselessAfter, MaxUselessPerFamily: c.Traps.MaxUselessPerFamily},
		DropParams: c.DropParams, Policy: c.Policy, Similarity: c.Similarity, Language: c.Language, Groups: c.Groups, NoDedup: c.NoDedup,
	}, nil
}

// decodeError names what a field of the configuration file must be when
// its value has the wrong JSON type, and says an empty file is empty.
func decodeError(err error) error {
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF):
		return errors.New("empty file")
	case errors.As(err, &te) && te.Field != "":
		want := te.Type.String()
		switch te.Field {
		case "delay", "timeout", "refresh_interval", "retry_backoff", "revisit.min_interval", "revisit.max_interval", "revisit.prior", "revisit.sitemaps":
			want = `a Go duration string such as "250ms"`
		case "policy":
			want = `"skip", "hidden" or "all"`
		case "similarity":
			want = `"resemblance" or "cosine"`
		}
		return fmt.Errorf("%s must be %s, not a %s", te.Field, want, te.Value)
	}
	return err
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
	if err := o.Share.validate(o); err != nil {
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
