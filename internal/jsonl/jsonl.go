// Package jsonl reads the document files that `doppel dedup` and
// `doppel eval` take, and writes result files atomically.
//
// Input is JSON Lines, optionally gzip-compressed (detected from the first
// bytes): one object per line with "id" and "text" required and "url",
// "title" and "group" optional. Blank lines are ignored. Every error names
// the 1-based line number. Invalid UTF-8 inside a line is replaced by U+FFFD
// and counted, not fatal.
package jsonl

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// MaxLineBytes is the longest input line accepted (64 MiB).
const MaxLineBytes = 64 << 20

// A Record is one input document.
type Record struct {
	ID    string `json:"id"`
	Text  string `json:"text"`
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
	Group string `json:"group,omitempty"`
}

// A LineError reports a problem with one input line.
type LineError struct {
	Line int   // 1-based line number
	Err  error // what is wrong
}

func (e *LineError) Error() string { return fmt.Sprintf("jsonl: line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Errors wrapped by [LineError].
var (
	ErrMissingID   = errors.New(`missing "id"`)
	ErrMissingText = errors.New(`missing "text"`)
	ErrDuplicateID = errors.New("duplicate id")
	ErrLineTooLong = fmt.Errorf("line longer than %d bytes", MaxLineBytes)
)

// A Reader reads Records. It is not safe for concurrent use.
type Reader struct {
	br       *bufio.Reader
	line     int
	seen     map[string]int // id → line of first occurrence
	repaired int
	buf      []byte
}

// NewReader returns a Reader for r, decompressing it if it starts with the
// gzip magic bytes.
func NewReader(r io.Reader) (*Reader, error) {
	src, err := Decompress(r)
	if err != nil {
		return nil, err
	}
	return &Reader{br: bufio.NewReaderSize(src, 1<<20), seen: map[string]int{}}, nil
}

// Decompress returns a reader of r's content, gunzipped if r starts with
// the gzip magic bytes, as is otherwise.
func Decompress(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("jsonl: %w", err)
		}
		return zr, nil
	}
	return br, nil
}

// Next returns the next record, or io.EOF after the last one. A malformed
// line, a missing id or text, or an id seen before gives a *LineError; the
// Reader should not be used after an error other than io.EOF.
func (r *Reader) Next() (Record, error) {
	for {
		line, err := r.readLine()
		if err != nil {
			return Record{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return r.parse(line)
	}
}

func (r *Reader) readLine() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		r.buf = append(r.buf, chunk...)
		if len(r.buf) > MaxLineBytes {
			return nil, &LineError{r.line + 1, ErrLineTooLong}
		}
		switch {
		case err == nil:
			r.line++
			return r.buf, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(r.buf) > 0:
			r.line++
			return r.buf, nil
		case errors.Is(err, io.EOF):
			return nil, io.EOF
		default:
			return nil, fmt.Errorf("jsonl: after line %d: %w", r.line, err)
		}
	}
}

// raw distinguishes a missing field from an empty one.
type raw struct {
	ID    *string `json:"id"`
	Text  *string `json:"text"`
	URL   string  `json:"url"`
	Title string  `json:"title"`
	Group string  `json:"group"`
}

// decodeOptions are encoding/json's rules (what the reader accepted
// before it used the faster decoder of encoding/json/v2): invalid UTF-8
// replaced by U+FFFD, the last of duplicate names wins, names matched
// without regard to case.
var decodeOptions = json.JoinOptions(
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
	json.MatchCaseInsensitiveNames(true),
)

func (r *Reader) parse(line []byte) (Record, error) {
	if !utf8.Valid(line) {
		r.repaired++ // the decoder replaces invalid bytes with U+FFFD
	}
	var v raw
	if err := json.Unmarshal(line, &v, decodeOptions); err != nil {
		return Record{}, &LineError{r.line, fmt.Errorf("invalid JSON: %w", err)}
	}
	switch {
	case v.ID == nil || *v.ID == "":
		return Record{}, &LineError{r.line, ErrMissingID}
	case v.Text == nil:
		return Record{}, &LineError{r.line, ErrMissingText}
	}
	if first, dup := r.seen[*v.ID]; dup {
		return Record{}, &LineError{r.line, fmt.Errorf("%w %q (first on line %d)", ErrDuplicateID, *v.ID, first)}
	}
	r.seen[*v.ID] = r.line
	return Record{ID: *v.ID, Text: *v.Text, URL: v.URL, Title: v.Title, Group: v.Group}, nil
}

// Line returns the number of the last line read.
func (r *Reader) Line() int { return r.line }

// Repaired returns how many records so far held invalid UTF-8 that was
// replaced by U+FFFD.
func (r *Reader) Repaired() int { return r.repaired }

// ReadAll reads every record from r. It stops at the first error.
func ReadAll(r io.Reader) (recs []Record, repaired int, err error) {
	jr, err := NewReader(r)
	if err != nil {
		return nil, 0, err
	}
	for {
		rec, err := jr.Next()
		if errors.Is(err, io.EOF) {
			return recs, jr.Repaired(), nil
		}
		if err != nil {
			return nil, jr.Repaired(), err
		}
		recs = append(recs, rec)
	}
}
