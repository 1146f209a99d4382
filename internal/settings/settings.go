// Package settings reads and writes an options struct as a JSON
// configuration file and registers its command-line flags, both from the
// struct's field tags, so each setting is spelled once, beside its field.
// A field such as
//
//	Delay time.Duration `json:"delay" zero:"none" flag:"delay" help:"pause between requests (default 100ms; 0: none)"`
//
// is the file's "delay" key and the --delay flag. The tags:
//
//   - json names the field's key in the file ("-": not in the file); the
//     fields of an embedded struct without one are the struct's own. A
//     struct field (not a json.Marshaler or encoding.TextMarshaler) is a
//     nested object whose fields follow the same tags; any other field is
//     read and written by encoding/json, except time.Duration, which is a
//     Go duration string ("250ms", "1h30m"), "" for zero.
//   - zero:"none", on a time.Duration: an explicit zero ("0s" in the file,
//     0 on the command line) means none and is kept as -1, while an absent
//     one (or "") is zero, the default. A negative one is written "0s".
//   - choices lists the values of a field read from a JSON string (such as
//     a TextUnmarshaler enum), for the error that names what it must be.
//   - flag names the field's flag; "name,append" on a slice appends the
//     flag's values to the file's instead of replacing them.
//   - sep, on a slice, splits each value of its flag there: sep:","
//     reads --groups a,b as two values.
//   - help is the flag's usage; a {word} in it is the value's placeholder
//     in -h (flag.UnquoteUsage's `word`).
//
// Unknown keys are errors, so a typo does not silently fall back to a
// default, and every error names the field by its path in the file
// ("revisit.min_interval").
//
// Register's options give the flags non-zero defaults (Defaults, which -h
// shows) and read the values of types the flag package does not (Parse,
// ParseOnSet), so that a command's settings struct, embedding the Options
// of the packages it drives, is the one declaration of its flags and of
// its configuration file.
package settings

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"time"
)

// field is one setting of a struct type.
type field struct {
	index   []int  // the field's path, through embedded structs
	name    string // the json key; "" when not in the file
	typ     reflect.Type
	nested  bool // a struct read and written as an object of settings
	none    bool // zero:"none"
	choices []string
}

var (
	durationType  = reflect.TypeFor[time.Duration]()
	marshalerType = []reflect.Type{reflect.TypeFor[json.Marshaler](), reflect.TypeFor[encoding.TextMarshaler]()}
)

// fields returns the settings of struct type t kept in the file, in
// their order; the fields of an embedded struct without a json name are
// t's own, as encoding/json reads them.
func fields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			for _, f := range fields(sf.Type) {
				f.index = append([]int{i}, f.index...)
				out = append(out, f)
			}
			continue
		}
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f := field{index: []int{i}, name: name, typ: sf.Type, none: sf.Tag.Get("zero") == "none"}
		f.nested = sf.Type.Kind() == reflect.Struct && !slices.ContainsFunc(marshalerType, func(m reflect.Type) bool {
			return sf.Type.Implements(m) || reflect.PointerTo(sf.Type).Implements(m)
		})
		if c := sf.Tag.Get("choices"); c != "" {
			f.choices = strings.Fields(c)
		}
		out = append(out, f)
	}
	return out
}

// structValue returns the struct v is or points to.
func structValue(v any) (reflect.Value, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("settings: %T is not a struct", v)
	}
	return rv, nil
}

// Marshal returns v, a struct or a pointer to one, as a compact JSON
// object of its settings in the order of its fields.
func Marshal(v any) ([]byte, error) {
	rv, err := structValue(v)
	if err != nil {
		return nil, err
	}
	return appendObject(nil, rv)
}

// appendObject appends struct v's settings as a JSON object to b.
func appendObject(b []byte, v reflect.Value) ([]byte, error) {
	b = append(b, '{')
	for i, f := range fields(v.Type()) {
		if i > 0 {
			b = append(b, ',')
		}
		key, _ := json.Marshal(f.name)
		b = append(append(b, key...), ':')
		fv := v.FieldByIndex(f.index)
		var err error
		switch {
		case f.nested:
			b, err = appendObject(b, fv)
		case f.typ == durationType:
			b, err = appendJSON(b, durationText(time.Duration(fv.Int()), f.none))
		default:
			b, err = appendJSON(b, fv.Interface())
		}
		if err != nil {
			return nil, fmt.Errorf("settings: %s: %w", f.name, err)
		}
	}
	return append(b, '}'), nil
}

// appendJSON appends v in JSON to b.
func appendJSON(b []byte, v any) ([]byte, error) {
	data, err := json.Marshal(v)
	return append(b, data...), err
}

// durationText returns d as the file holds it: "" for zero (the
// default), "0s" for none, else its Go duration string.
func durationText(d time.Duration, none bool) string {
	switch {
	case d == 0:
		return ""
	case d < 0 && none:
		return "0s"
	}
	s := d.String() // "1h0m0s", written "1h"; "2m0s", "2m"
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Unmarshal reads data, one JSON object, into v, a pointer to a struct:
// the keys present set their fields, the others keep their values.
// Errors name the field; unknown keys, an empty input and anything after
// the object are errors. Every error in the object is reported.
func Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("settings: Unmarshal needs a pointer to a struct, not %T", v)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty file")
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON object")
	}
	return decodeObject(raw, rv.Elem(), "")
}

// decodeObject reads the JSON object raw into struct v; path is the
// object's own path in the file ("" at the top, else "name.").
func decodeObject(raw json.RawMessage, v reflect.Value, path string) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		name := strings.TrimSuffix(path, ".")
		if name == "" {
			name = "the configuration"
		}
		return fmt.Errorf("%s must be a JSON object, not %s", name, kind(raw))
	}
	fs := fields(v.Type())
	var errs []error
	used := map[string]bool{}
	for _, f := range fs {
		key, ok := lookup(members, f.name)
		if !ok {
			continue
		}
		used[key] = true
		if err := decodeField(members[key], v.FieldByIndex(f.index), f, path+f.name); err != nil {
			errs = append(errs, err)
		}
	}
	var unknown []string
	for key := range members {
		if !used[key] {
			unknown = append(unknown, key)
		}
	}
	slices.Sort(unknown)
	for _, key := range unknown {
		errs = append(errs, fmt.Errorf("unknown field %q", path+key))
	}
	return errors.Join(errs...)
}

// lookup returns the key of members that names a field: name itself,
// else one equal to it ignoring case, as encoding/json matches.
func lookup(members map[string]json.RawMessage, name string) (string, bool) {
	if _, ok := members[name]; ok {
		return name, true
	}
	for key := range members {
		if strings.EqualFold(key, name) {
			return key, true
		}
	}
	return "", false
}

// decodeField reads raw into the field fv described by f, at path.
func decodeField(raw json.RawMessage, fv reflect.Value, f field, path string) error {
	switch {
	case f.nested:
		if kind(raw) == "null" {
			return nil
		}
		return decodeObject(raw, fv, path+".")
	case f.typ == durationType:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return fmt.Errorf("%s must be a Go duration string such as \"250ms\", not %s", path, kind(raw))
		}
		d, err := parseDuration(s, f.none)
		if err != nil {
			return fmt.Errorf("%s: %q is not a Go duration such as \"250ms\"", path, s)
		}
		fv.SetInt(int64(d))
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(fv.Addr().Interface())
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &te):
		want := te.Type.String()
		if len(f.choices) > 0 {
			want = choices(f.choices)
		}
		if te.Field != "" && te.Field != f.name {
			path += "." + te.Field
		}
		return fmt.Errorf("%s must be %s, not a %s", path, want, te.Value)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// parseDuration reads a duration setting: "" is zero (the default), and
// for a zero:"none" field an explicit zero is none (-1).
func parseDuration(s string, none bool) (time.Duration, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err == nil && d == 0 && none {
		d = -1
	}
	return d, err
}

// kind names the JSON type of raw, with its article: "a number".
func kind(raw json.RawMessage) string {
	switch t := bytes.TrimSpace(raw); {
	case len(t) == 0:
		return "nothing"
	case t[0] == '"':
		return "a string"
	case t[0] == '{':
		return "an object"
	case t[0] == '[':
		return "an array"
	case t[0] == 't' || t[0] == 'f':
		return "a bool"
	case t[0] == 'n':
		return "null"
	}
	return "a number"
}

// choices writes values as a list of JSON strings: "a", "b" or "c".
func choices(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = fmt.Sprintf("%q", v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
