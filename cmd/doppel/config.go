package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/doppel-search/doppel/internal/settings"
	"github.com/doppel-search/doppel/web"
)

// flagParsers read the values of the types the commands' settings hold
// that neither the flag package nor encoding.TextUnmarshaler reads: the
// serving flags' (web.Options).
var flagParsers = []settings.Option{
	settings.Parse(parseTrustedProxies),
	settings.Parse(parseDemoUsers),
	settings.ParseOnSet(web.ParseShareLink),
}

// A configFlags is a command's settings of type T (package internal/
// settings): the flags of its fields, with their defaults, and, for a
// command that reads a configuration file, --config and --print-config.
type configFlags[T any] struct {
	fs       *flag.FlagSet
	flags    *settings.Flags
	defaults T
	config   string // --config: the configuration file, if any
	print    bool   // --print-config
}

// defineConfig defines on fs the flags of T's fields, whose defaults are
// def's, and with file --config and --print-config.
func defineConfig[T any](fs *flag.FlagSet, def T, file bool) *configFlags[T] {
	c := &configFlags[T]{fs: fs, defaults: def}
	c.flags = settings.Register[T](fs, append([]settings.Option{settings.Defaults(def)}, flagParsers...)...)
	if file {
		fs.StringVar(&c.config, "config", "", "JSON configuration `file`, as --print-config prints it: every setting optional, durations as Go duration strings (\"30s\"), unknown ones an error; flags override it")
		fs.BoolVar(&c.print, "print-config", false, "print the settings the command would run with (the defaults, then --config, then the flags) as a configuration file, and exit")
	}
	return c
}

// load returns the settings: the defaults, overridden by the
// configuration file's, overridden by the flags given (fs parsed). A flag
// value its field does not read is a usage error, said on stderr.
func (c *configFlags[T]) load(stderr io.Writer) (T, error) {
	s := c.defaults
	if c.config != "" {
		data, err := os.ReadFile(c.config)
		if err != nil {
			return s, err
		}
		if err := settings.Unmarshal(data, &s); err != nil {
			return s, fmt.Errorf("config %s: %w", c.config, err)
		}
	}
	if err := c.flags.Apply(&s); err != nil {
		fmt.Fprintf(stderr, "doppel %s: %v\n", c.fs.Name(), err)
		usageHint(c.fs, stderr)
		return s, errUsage
	}
	return s, nil
}

// writeSettings writes s, a command's settings, to w as a configuration
// file that --config reads back to the same settings: indented JSON.
func writeSettings(w io.Writer, s any) error {
	data, err := settings.Marshal(s)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, data, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}
