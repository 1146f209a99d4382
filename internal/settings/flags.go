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
	fs    *flag.FlagSet
	flags map[string]flagField
}

// flagField is the field a flag sets and where the flag keeps its value
// until Apply.
type flagField struct {
	index  []int
	append bool
	none   bool
	value  reflect.Value // the flag's variable
}

var (
	placeholder   = regexp.MustCompile(`\{(\w+)\}`)
	unmarshalType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// Register defines in fs a flag for every field of the struct type T,
// nested structs included, that has a flag tag (see the package doc):
// bool, int, float64, string and time.Duration fields as the flag
// package's own flags of those types, []string as a repeatable flag,
// and a field whose pointer is an encoding.TextUnmarshaler as a string
// flag read by it when applied. A flag's default is the zero value: its
// help says what the zero means. It panics on a field type it cannot
// register, a programming error.
func Register[T any](fs *flag.FlagSet) *Flags {
	f := &Flags{fs: fs, flags: map[string]flagField{}}
	f.register(reflect.TypeFor[T](), nil)
	return f
}

// register defines the flags of struct type t, whose fields lie at index
// (a field path) in the struct Apply sets.
func (f *Flags) register(t reflect.Type, index []int) {
	for i := range t.NumField() {
		sf := t.Field(i)
		at := append(append([]int(nil), index...), i)
		spec := sf.Tag.Get("flag")
		if spec == "" {
			if sf.Type.Kind() == reflect.Struct && sf.IsExported() {
				f.register(sf.Type, at)
			}
			continue
		}
		name, opt, _ := strings.Cut(spec, ",")
		ff := flagField{index: at, append: opt == "append", none: sf.Tag.Get("zero") == "none"}
		usage := placeholder.ReplaceAllString(sf.Tag.Get("help"), "`$1`")
		switch p := reflect.New(sf.Type); {
		case sf.Type.Kind() != reflect.String && p.Type().Implements(unmarshalType):
			ff.value = reflect.New(reflect.TypeFor[string]())
			f.fs.StringVar(ff.value.Interface().(*string), name, "", usage)
		case sf.Type == durationType:
			ff.value = p
			f.fs.DurationVar(p.Interface().(*time.Duration), name, 0, usage)
		case sf.Type.Kind() == reflect.Bool:
			ff.value = p
			f.fs.BoolVar(p.Interface().(*bool), name, false, usage)
		case sf.Type.Kind() == reflect.Int:
			ff.value = p
			f.fs.IntVar(p.Interface().(*int), name, 0, usage)
		case sf.Type.Kind() == reflect.Float64:
			ff.value = p
			f.fs.Float64Var(p.Interface().(*float64), name, 0, usage)
		case sf.Type.Kind() == reflect.String:
			ff.value = p
			f.fs.StringVar(p.Interface().(*string), name, "", usage)
		case sf.Type == reflect.TypeFor[[]string]():
			ff.value = p
			f.fs.Var((*list)(p.Interface().(*[]string)), name, usage)
		default:
			panic(fmt.Sprintf("settings: the flag %s of %s.%s has a type it cannot read, %s", name, t, sf.Name, sf.Type))
		}
		f.flags[name] = ff
	}
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
		switch {
		case field.Type() != val.Type(): // a TextUnmarshaler read from the flag's string
			if e := field.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(val.String())); e != nil {
				errs = append(errs, fmt.Errorf("--%s: %w", fl.Name, e))
			}
		case ff.append:
			field.Set(reflect.AppendSlice(field, val))
		case val.Kind() == reflect.Slice: // a copy: dst does not share the flag's variable
			field.Set(reflect.AppendSlice(reflect.Zero(val.Type()), val))
		case ff.none && val.Int() == 0:
			field.SetInt(-1)
		default:
			field.Set(val)
		}
	})
	return errors.Join(errs...)
}

// list is a repeatable string flag.
type list []string

// String returns the values, comma-separated.
func (l *list) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(*l, ",")
}

// Set appends v.
func (l *list) Set(v string) error { *l = append(*l, v); return nil }
