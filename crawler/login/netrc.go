package login

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
)

// maxNetrcBytes bounds the netrc file read.
const maxNetrcBytes = 1 << 20

// ReadNetrc adds the machines of the netrc file at path to s: as curl,
// wget and git read it, "machine HOST login USER password PASSWORD"
// entries (and "default" for any other host; "account" and "macdef"
// are skipped), tokens separated by white space, "# …" comments, and
// "quoted \"tokens\"". The credentials sign in with Basic or NTLM to the
// host's pages (any scheme and port). The file is refused unless only
// its owner may read it (mode 0600 or stricter), as ssh does with a key.
func (s *Set) ReadNetrc(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("login: netrc: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("login: netrc: %w", err)
	}
	if info.IsDir() {
		return fmt.Errorf("login: netrc %s is a directory", path)
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("login: netrc %s may be read by others (mode %04o): make it readable by its owner only (chmod 600 %s)", path, perm, path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxNetrcBytes+1))
	if err != nil {
		return fmt.Errorf("login: netrc: %w", err)
	}
	if len(data) > maxNetrcBytes {
		return fmt.Errorf("login: netrc %s is larger than %d bytes", path, maxNetrcBytes)
	}
	machines, err := parseNetrc(string(data))
	if err != nil {
		return fmt.Errorf("login: netrc %s: %w", path, err)
	}
	if s.netrc == nil {
		s.netrc = map[string]machine{}
	}
	for host, m := range machines {
		s.netrc[host] = m
	}
	return nil
}

// parseNetrc reads netrc text: host name ("" for default) → credentials.
// Entries without a login are left out.
func parseNetrc(text string) (map[string]machine, error) {
	toks, err := netrcTokens(text)
	if err != nil {
		return nil, err
	}
	out := map[string]machine{}
	var host string
	var cur *machine
	end := func() {
		if cur != nil && cur.user != "" {
			if _, seen := out[host]; !seen { // the first entry for a host wins, as curl reads it
				out[host] = *cur
			}
		}
		cur = nil
	}
	value := func(i int, key string) (string, error) {
		if i+1 >= len(toks) || toks[i+1].macro {
			return "", fmt.Errorf("%q at the end of the file without a value", key)
		}
		return toks[i+1].text, nil
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.macro {
			continue
		}
		switch t.text {
		case "machine":
			end()
			v, err := value(i, t.text)
			if err != nil {
				return nil, err
			}
			host, cur = strings.ToLower(v), &machine{}
			i++
		case "default":
			end()
			host, cur = "", &machine{}
		case "login", "password", "account":
			v, err := value(i, t.text)
			if err != nil {
				return nil, err
			}
			i++
			if cur == nil {
				return nil, fmt.Errorf("%q before any machine", t.text)
			}
			switch t.text {
			case "login":
				cur.user = v
			case "password":
				cur.password = Secret(v)
			}
		default:
			return nil, fmt.Errorf("unexpected token %q (want machine, default, login, password, account or macdef)", redactToken(t.text))
		}
	}
	end()
	return out, nil
}

// redactToken shows at most the first letters of an unexpected token: it
// may be a password misplaced.
func redactToken(s string) string {
	if len(s) > 3 {
		return s[:1] + "…"
	}
	return s
}

// A netrcToken is a word of a netrc file; macro marks the body of a
// macdef (skipped).
type netrcToken struct {
	text  string
	macro bool
}

// netrcTokens splits netrc text into tokens: white space separates
// them, a token starting with # comments out the rest of its line, a
// token in double quotes may hold spaces and \" \\ \n \t escapes, and
// "macdef NAME" swallows the lines up to the next empty line.
func netrcTokens(text string) ([]netrcToken, error) {
	var out []netrcToken
	rs := []rune(text)
	for i := 0; i < len(rs); {
		switch r := rs[i]; {
		case unicode.IsSpace(r):
			i++
		case r == '#':
			i = lineEnd(rs, i)
		case r == '"':
			t, next, err := quotedToken(rs, i)
			if err != nil {
				return nil, err
			}
			out = append(out, netrcToken{text: t})
			i = next
		default:
			j := i
			for j < len(rs) && !unicode.IsSpace(rs[j]) {
				j++
			}
			out = append(out, netrcToken{text: string(rs[i:j])})
			i = j
			if out[len(out)-1].text == "macdef" {
				var body string
				body, i = macroBody(rs, i)
				out[len(out)-1] = netrcToken{text: body, macro: true}
			}
		}
	}
	return out, nil
}

// lineEnd returns the index of the first newline of rs at or after i,
// len(rs) if there is none.
func lineEnd(rs []rune, i int) int {
	for i < len(rs) && rs[i] != '\n' {
		i++
	}
	return i
}

// quotedToken reads the token in double quotes that starts at rs[i],
// undoing its \" \\ \n \t escapes, and returns it with the index after
// its closing quote.
func quotedToken(rs []rune, i int) (string, int, error) {
	var b strings.Builder
	i++
	for {
		if i >= len(rs) {
			return "", i, fmt.Errorf("a quoted token is not closed")
		}
		c := rs[i]
		if c == '"' {
			return b.String(), i + 1, nil
		}
		if c == '\\' && i+1 < len(rs) {
			i++
			switch rs[i] {
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			default:
				c = rs[i]
			}
		}
		b.WriteRune(c)
		i++
	}
}

// macroBody skips the macro's name, which follows "macdef" at rs[i], and
// returns its lines up to an empty line with the index where they end.
func macroBody(rs []rune, i int) (string, int) {
	i = lineEnd(rs, i)
	start := i
	for i < len(rs) && !(rs[i] == '\n' && i+1 < len(rs) && rs[i+1] == '\n') {
		i++
	}
	return string(rs[start:i]), i
}
