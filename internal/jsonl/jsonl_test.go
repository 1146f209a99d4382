package jsonl

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReader(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		ids      []string
		line     int // line of the error, 0 for none
		wantErr  error
		repaired int
	}{
		{name: "ok", in: "{\"id\":\"a\",\"text\":\"x\"}\n\n{\"id\":\"b\",\"text\":\"\",\"url\":\"u\"}", ids: []string{"a", "b"}},
		{name: "bad json", in: "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":", ids: []string{"a"}, line: 2},
		{name: "missing id", in: "{\"text\":\"x\"}\n", line: 1, wantErr: ErrMissingID},
		{name: "missing text", in: "{\"id\":\"a\"}\n", line: 1, wantErr: ErrMissingText},
		{name: "duplicate", in: "{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"a\",\"text\":\"y\"}\n", ids: []string{"a"}, line: 2, wantErr: ErrDuplicateID},
		{name: "invalid utf8", in: "{\"id\":\"a\",\"text\":\"caf\xe9\"}\n", ids: []string{"a"}, repaired: 1},
		{name: "not an object", in: "[1,2]\n", line: 1},
		{name: "trailing data", in: "{\"id\":\"a\",\"text\":\"x\"} {}\n", line: 1},
		{name: "names of any case", in: "{\"ID\":\"a\",\"Text\":\"x\"}\n", ids: []string{"a"}},
		{name: "last duplicate name wins", in: "{\"id\":\"a\",\"id\":\"b\",\"text\":\"x\"}\n", ids: []string{"b"}},
		{name: "null text", in: "{\"id\":\"a\",\"text\":null}\n", line: 1, wantErr: ErrMissingText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReader(strings.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for {
				rec, err := r.Next()
				if errors.Is(err, io.EOF) {
					if tt.line != 0 {
						t.Fatalf("no error, want one on line %d", tt.line)
					}
					break
				}
				if err != nil {
					var le *LineError
					if !errors.As(err, &le) || le.Line != tt.line {
						t.Fatalf("err = %v, want a LineError on line %d", err, tt.line)
					}
					if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
						t.Fatalf("err = %v, want %v", err, tt.wantErr)
					}
					break
				}
				ids = append(ids, rec.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.ids, ",") {
				t.Errorf("ids = %v, want %v", ids, tt.ids)
			}
			if r.Repaired() != tt.repaired {
				t.Errorf("Repaired = %d, want %d", r.Repaired(), tt.repaired)
			}
		})
	}
}

func TestReaderRepairsToReplacementChar(t *testing.T) {
	recs, repaired, err := ReadAll(strings.NewReader("{\"id\":\"a\",\"text\":\"caf\xe9\"}"))
	if err != nil || repaired != 1 || recs[0].Text != "caf\uFFFD" {
		t.Fatalf("got %q, %d, %v", recs, repaired, err)
	}
}

func TestGzipAndLongLines(t *testing.T) {
	long := strings.Repeat("word ", 1<<19) // 2.5 MB, longer than the buffer
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	io.WriteString(zw, `{"id":"long","text":"`+long+`"}`+"\n"+`{"id":"b","text":"b"}`+"\n")
	zw.Close()
	recs, _, err := ReadAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Text != long || recs[1].ID != "b" {
		t.Fatalf("read %d records", len(recs))
	}
}

func TestWriterAtomic(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(map[string]string{"id": "a"})
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("target exists before Commit")
	}
	w.Abort()
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 0 {
		t.Fatalf("Abort left %d files behind", len(entries))
	}
	w, _ = Create(path)
	w.Write(map[string]string{"id": "<a&b>"})
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{\"id\":\"<a&b>\"}\n" {
		t.Fatalf("file = %q", got)
	}
}

func FuzzReader(f *testing.F) {
	f.Add([]byte("{\"id\":\"a\",\"text\":\"x\"}\n{\"id\":\"b\",\"text\":\"y\"}"))
	f.Add([]byte("{\"id\":\"a\"}\n\n\xff"))
	f.Add([]byte{0x1f, 0x8b, 0, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for i := 0; ; i++ {
			rec, err := r.Next()
			if err != nil {
				var le *LineError
				if !errors.Is(err, io.EOF) && !errors.As(err, &le) && !strings.HasPrefix(err.Error(), "jsonl: ") {
					t.Fatalf("error without context: %v", err)
				}
				return
			}
			if rec.ID == "" || seen[rec.ID] {
				t.Fatalf("record %d: empty or duplicate id %q accepted", i, rec.ID)
			}
			seen[rec.ID] = true
		}
	})
}
