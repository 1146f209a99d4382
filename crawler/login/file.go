package login

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
)

// maxFileBytes bounds the login file read.
const maxFileBytes = 1 << 20

// fileSite is a login as a login file writes it.
type fileSite struct {
	Prefix   string            `json:"prefix"`
	User     string            `json:"user"`
	Password string            `json:"password"`
	Form     *fileForm         `json:"form"`
	Headers  map[string]string `json:"headers"`
	Groups   []string          `json:"groups"`
}

type fileForm struct {
	URL     string            `json:"url"`
	Fields  map[string]string `json:"fields"`
	Expired string            `json:"expired"`
}

// secretField matches the names of form fields that hold secrets.
var secretField = regexp.MustCompile(`(?i)pass|pwd|pw$|secret|token|pin$|otp`)

// ReadFile adds the logins of the JSON login file at path to s:
//
//	{"logins": [
//	  {"prefix": "https://wiki.example/", "user": "alice", "password": "${WIKI_PASSWORD}", "groups": ["staff"]},
//	  {"prefix": "https://portal.example/", "groups": ["staff"],
//	   "form": {"url": "https://portal.example/login",
//	            "fields": {"username": "alice", "password": "${PORTAL_PASSWORD}"},
//	            "expired": "Your session has expired"}},
//	  {"prefix": "https://api.example/", "headers": {"Authorization": "Bearer ${API_TOKEN}"}, "groups": ["it"]}
//	]}
//
// Secrets — a password, a header's value, a form field whose name says
// password, token, secret or PIN — must name environment variables
// (${NAME}, read now; an unset one is an error naming it), so the file
// holds none and may be kept with the crawl's configuration. A login
// with neither user, form nor headers takes its credentials from the
// netrc file and only sets the groups. Unknown fields are errors.
func (s *Set) ReadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	if len(data) > maxFileBytes {
		return fmt.Errorf("login: %s is larger than %d bytes", path, maxFileBytes)
	}
	sites, err := parseFile(data, lookupEnv)
	if err != nil {
		return fmt.Errorf("login: %s: %w", path, err)
	}
	return s.Add(sites...)
}

// parseFile reads a login file's JSON, expanding references with lookup.
func parseFile(data []byte, lookup func(string) (string, bool)) ([]Site, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var file struct {
		Logins []fileSite `json:"logins"`
	}
	if err := dec.Decode(&file); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("empty file")
		}
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("unexpected data after the JSON object")
	}
	var out []Site
	for i, fs := range file.Logins {
		what := fmt.Sprintf("logins[%d]", i)
		site := Site{Prefix: fs.Prefix, User: fs.User, Groups: fs.Groups}
		if fs.Password != "" {
			pw, err := expand(fs.Password, what+".password", true, lookup)
			if err != nil {
				return nil, err
			}
			site.Password = pw
		}
		for _, name := range sortedKeys(fs.Headers) {
			v, err := expand(fs.Headers[name], fmt.Sprintf("%s.headers[%q]", what, name), true, lookup)
			if err != nil {
				return nil, err
			}
			if site.Headers == nil {
				site.Headers = map[string]Secret{}
			}
			site.Headers[name] = v
		}
		if ff := fs.Form; ff != nil {
			site.Form = &Form{URL: ff.URL, Expired: ff.Expired, Fields: map[string]Secret{}}
			for _, name := range sortedKeys(ff.Fields) {
				v, err := expand(ff.Fields[name], fmt.Sprintf("%s.form.fields[%q]", what, name), secretField.MatchString(name), lookup)
				if err != nil {
					return nil, err
				}
				site.Form.Fields[name] = v
			}
		}
		if err := site.Validate(); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		out = append(out, site)
	}
	return out, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
