// Package docexamples runs the examples of README.md and docs/*.md as they
// are printed (TestDocExamples), so that the docs cannot drift from what
// nodegate does. The rules a block follows, by its language and by an
// optional marker on the line before its fence, are README.md's "Examples
// in these docs".
//
// It is for tests only; nothing in the binary imports it. It must not
// change a doc: a block that fails is fixed in the doc or in nodegate.
package docexamples
