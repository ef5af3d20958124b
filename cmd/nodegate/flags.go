package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string { return strings.Join(*s, ",") }

func (s *stringList) Set(v string) error {
	*s = append(*s, v)
	return nil
}

// newFlagSet makes a flag set that prints nothing by itself: parseFlags
// prints the help when it is asked for, and a bad flag is reported once,
// by the caller, rather than as the error, the whole usage, and the error
// again.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// parseFlags parses args. -h/--help prints header and the flags to stderr
// and returns flag.ErrHelp; a bad flag returns the error with where the
// flags are listed.
func parseFlags(fs *flag.FlagSet, header string, args []string, stderr io.Writer) error {
	explainForms(fs)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stderr, header)
		fs.SetOutput(stderr)
		fs.PrintDefaults()
		return err
	case err != nil:
		return fmt.Errorf("%w ('nodegate %s --help' lists the flags)", err, fs.Name())
	}
	return nil
}

// setFlags lists the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}
