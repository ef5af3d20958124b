package main

import (
	"flag"
	"fmt"
	"io"
)

// newFlagSet makes a flag set whose errors and help go to stderr, with a usage header.
func newFlagSet(name, header string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, header)
		fs.PrintDefaults()
	}
	return fs
}
