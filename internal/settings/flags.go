package settings

import (
	"encoding"
	"errors"
	"flag"
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"time"
)

// Flags are the flags of a struct's settings, registered in a FlagSet.
type Flags struct {
	fs      *flag.FlagSet
	flags   map[string]flagField
	parsers map[reflect.Type]parser
}

// flagField is the field a flag sets and where the flag keeps its value
// until Apply.
type flagField struct {
	index  []int
	append bool
	none   bool
	value  reflect.Value // the flag's variable, or its *text
}

// An Option changes how Register defines the flags.
type Option func(*registry)

// registry is what the Options set.
type registry struct {
	defaults reflect.Value // the struct of the flags' defaults; invalid: the zero values
	parsers  map[reflect.Type]parser
}

// parser reads a value of a type given with Parse or ParseOnSet.
type parser struct {
	read  func(string) (reflect.Value, error)
	onSet bool // read as the flag is set: a bad value is a usage error
}

// Defaults makes v's fields the flags' defaults, shown by -h (the flag
// package's PrintDefaults). They are shown only: Apply sets the fields
// whose flags were given over what dst holds, so the caller starts dst
// from v (then a configuration file's settings). Register panics if v is
// not of the type it registers.
func Defaults[T any](v T) Option {
	return func(r *registry) { r.defaults = reflect.ValueOf(v) }
}

// Parse makes fields of type T, and the elements of []T fields, flags
// read by fn when Apply is called: a bad value is Apply's error, naming
// the flag. It takes precedence over T's own encoding.TextUnmarshaler.
func Parse[T any](fn func(string) (T, error)) Option {
	return addParser(fn, false)
}

// ParseOnSet is Parse, reading each value as the flag is set: a bad value
// is an error of the FlagSet's Parse, a usage error. Apply reads it again.
func ParseOnSet[T any](fn func(string) (T, error)) Option {
	return addParser(fn, true)
}

// addParser returns the Option adding fn as T's parser.
func addParser[T any](fn func(string) (T, error), onSet bool) Option {
	return func(r *registry) {
		r.parsers[reflect.TypeFor[T]()] = parser{onSet: onSet, read: func(s string) (reflect.Value, error) {
			v, err := fn(s)
			return reflect.ValueOf(&v).Elem(), err
		}}
	}
}

var (
	placeholder   = regexp.MustCompile(`\{([^{}\s"]+)\}`)
	unmarshalType = reflect.TypeFor[encoding.TextUnmarshaler]()
	marshalType   = reflect.TypeFor[encoding.TextMarshaler]()
)

// Register defines in fs a flag for every field of the struct type T,
// nested and embedded structs included, that has a flag tag (see the
// package doc): bool, int, float64, string and time.Duration fields as the
// flag package's own flags of those types; a field of a type given with
// Parse or ParseOnSet, or whose pointer is an encoding.TextUnmarshaler,
// as a string flag read by it; and a slice of strings or of those types
// as a repeatable flag, whose values are also split at the field's sep
// tag, if any (sep:"," reads --groups a,b as two values). A flag's default
// is the zero value unless given with Defaults: the help says what the
// zero means. It panics on a field type it cannot register, a programming
// error.
func Register[T any](fs *flag.FlagSet, opts ...Option) *Flags {
	r := &registry{parsers: map[reflect.Type]parser{}}
	for _, o := range opts {
		o(r)
	}
	t := reflect.TypeFor[T]()
	if r.defaults.IsValid() && r.defaults.Type() != t {
		panic(fmt.Sprintf("settings: defaults of type %s for the flags of %s", r.defaults.Type(), t))
	}
	if !r.defaults.IsValid() {
		r.defaults = reflect.Zero(t)
	}
	f := &Flags{fs: fs, flags: map[string]flagField{}, parsers: r.parsers}
	f.register(t, nil, r.defaults)
	return f
}

// register defines the flags of struct type t, whose fields lie at index
// (a field path) in the struct Apply sets, with their defaults in def.
func (f *Flags) register(t reflect.Type, index []int, def reflect.Value) {
	for i := range t.NumField() {
		sf := t.Field(i)
		at := append(append([]int(nil), index...), i)
		spec := sf.Tag.Get("flag")
		if spec == "" {
			if sf.Type.Kind() == reflect.Struct && (sf.IsExported() || sf.Anonymous) {
				f.register(sf.Type, at, def.Field(i))
			}
			continue
		}
		name, opt, _ := strings.Cut(spec, ",")
		ff := flagField{index: at, append: opt == "append", none: sf.Tag.Get("zero") == "none"}
		usage := placeholder.ReplaceAllString(sf.Tag.Get("help"), "`$1`")
		if !f.define(&ff, sf, name, usage, def.Field(i)) {
			panic(fmt.Sprintf("settings: the flag %s of %s.%s has a type it cannot read, %s", name, t, sf.Name, sf.Type))
		}
		f.flags[name] = ff
	}
}

// define defines the flag name of field sf, with its default def, and
// reports whether it could.
func (f *Flags) define(ff *flagField, sf reflect.StructField, name, usage string, def reflect.Value) bool {
	p := reflect.New(sf.Type)
	switch typ := sf.Type; {
	case f.parsers[typ].read != nil:
		t := &text{check: f.check(typ)}
		ff.value = reflect.ValueOf(t)
		f.fs.Var(t, name, usage)
		f.fs.Lookup(name).DefValue = format(def)
	case f.readable(typ): // a string, or a TextUnmarshaler read from one
		s := reflect.New(reflect.TypeFor[string]())
		ff.value = s
		f.fs.StringVar(s.Interface().(*string), name, format(def), usage)
	case typ.Kind() == reflect.Slice && f.readable(typ.Elem()):
		t := &text{list: true, sep: sf.Tag.Get("sep"), check: f.check(typ.Elem())}
		ff.value = reflect.ValueOf(t)
		f.fs.Var(t, name, usage)
		f.fs.Lookup(name).DefValue = formatList(def, t.sep)
	case typ == durationType:
		ff.value = p
		f.fs.DurationVar(p.Interface().(*time.Duration), name, time.Duration(def.Int()), usage)
	case typ.Kind() == reflect.Bool:
		ff.value = p
		f.fs.BoolVar(p.Interface().(*bool), name, def.Bool(), usage)
	case typ.Kind() == reflect.Int:
		ff.value = p
		f.fs.IntVar(p.Interface().(*int), name, int(def.Int()), usage)
	case typ.Kind() == reflect.Float64:
		ff.value = p
		f.fs.Float64Var(p.Interface().(*float64), name, def.Float(), usage)
	default:
		return false
	}
	return true
}

// readable reports whether a value of type t is read from one string by
// a text flag: a string, a type with a parser, or a TextUnmarshaler.
func (f *Flags) readable(t reflect.Type) bool {
	_, custom := f.parsers[t]
	return custom || t.Kind() == reflect.String || reflect.PointerTo(t).Implements(unmarshalType)
}

// check returns the check of a value of type t as its flag is set: its
// ParseOnSet parser, if it has one, else nil.
func (f *Flags) check(t reflect.Type) func(string) error {
	p, ok := f.parsers[t]
	if !ok || !p.onSet {
		return nil
	}
	return func(s string) error { _, err := p.read(s); return err }
}

// read returns s read as a value of type t (readable).
func (f *Flags) read(t reflect.Type, s string) (reflect.Value, error) {
	if p, ok := f.parsers[t]; ok {
		return p.read(s)
	}
	v := reflect.New(t).Elem()
	if t.Kind() == reflect.String {
		v.SetString(s)
		return v, nil
	}
	err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s))
	return v, err
}

// format returns v as -h shows a default: as text if it marshals to
// text (a text enum's zero is one of its values), else "" for the zero
// value, else as fmt prints it.
func format(v reflect.Value) string {
	if v.Type().Implements(marshalType) {
		b, _ := v.Interface().(encoding.TextMarshaler).MarshalText()
		return string(b)
	}
	if v.IsZero() {
		return ""
	}
	return fmt.Sprint(v.Interface())
}

// formatList returns the slice v as -h shows a default: its elements
// (format) joined by sep, or by a comma.
func formatList(v reflect.Value, sep string) string {
	if sep == "" {
		sep = ","
	}
	parts := make([]string, v.Len())
	for i := range parts {
		parts[i] = format(v.Index(i))
	}
	return strings.Join(parts, sep)
}

// Apply sets in dst, a pointer to the struct Register was given, the
// fields whose flags were set on the command line (the FlagSet parsed),
// over what dst holds (a configuration file's settings): a flag replaces
// the field, or adds to it with the append option; an explicit zero
// duration of a zero:"none" field is none (-1). A value its field's type
// does not read is an error naming the flag.
func (f *Flags) Apply(dst any) error {
	v := reflect.ValueOf(dst).Elem()
	var errs []error
	f.fs.Visit(func(fl *flag.Flag) {
		ff, ok := f.flags[fl.Name]
		if !ok {
			return
		}
		field, val := v.FieldByIndex(ff.index), ff.value.Elem()
		var err error
		switch {
		case val.Type() == reflect.TypeFor[text]():
			err = f.setText(field, val.Addr().Interface().(*text), ff.append)
		case field.Type() != val.Type(): // a TextUnmarshaler read from the flag's string
			var read reflect.Value
			if read, err = f.read(field.Type(), val.String()); err == nil {
				field.Set(read)
			}
		case ff.none && val.Int() == 0:
			field.SetInt(-1)
		default:
			field.Set(val)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", fl.Name, err))
		}
	})
	return errors.Join(errs...)
}

// setText sets field to the values given to its text flag t: the last
// one, or for a slice all of them, added to what field holds with add.
func (f *Flags) setText(field reflect.Value, t *text, add bool) error {
	if !t.list {
		v, err := f.read(field.Type(), t.values[len(t.values)-1])
		if err == nil {
			field.Set(v)
		}
		return err
	}
	elems := reflect.MakeSlice(field.Type(), 0, len(t.values)) // dst does not share the flag's values
	if add {
		elems = reflect.AppendSlice(elems, field)
	}
	for _, s := range t.values {
		v, err := f.read(field.Type().Elem(), s)
		if err != nil {
			return err
		}
		elems = reflect.Append(elems, v)
	}
	field.Set(elems)
	return nil
}

// text is a flag's values as given, read into its field by Apply: the
// last one, or with list all of them, each split at sep if it is set.
type text struct {
	values []string
	list   bool
	sep    string
	check  func(string) error // nil, or checks each value as it is set
}

// String returns the values, joined by sep (or a comma).
func (t *text) String() string {
	if t == nil {
		return ""
	}
	sep := t.sep
	if sep == "" {
		sep = ","
	}
	return strings.Join(t.values, sep)
}

// Set adds v, split at sep, the blanks dropped, after checking each.
func (t *text) Set(v string) error {
	parts := []string{v}
	if t.sep != "" {
		parts = parts[:0]
		for _, p := range strings.Split(v, t.sep) {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
	}
	for _, p := range parts {
		if t.check != nil {
			if err := t.check(p); err != nil {
				return err
			}
		}
	}
	if !t.list {
		t.values = []string{v}
		return nil
	}
	t.values = append(t.values, parts...)
	return nil
}
