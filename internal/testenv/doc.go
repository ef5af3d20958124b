// Package testenv holds what tests ask of the machine they run on and the
// things nearly every test does. Program (testenv.go) finds the
// programs some tests drive (curl, HAProxy, Chromium, Node.js): a missing
// program fails the test when CI is set (.ci/run installs them, so a skip
// there would hide a hole) and skips it elsewhere. WaitFor (wait.go) polls
// until a condition holds, instead of sleeping a fixed time; DeadlineLoops
// (loops.go) finds the hand-written deadline loops a test file must not
// hold, and TestNoHandWrittenDeadlineLoops fails on one. Post and
// PostJSON (post.go) send a JSON-RPC body and return the answer; Call
// (call.go) sends one request and reads its Answer (status, result, error
// object). The embedded node a test starts comes from
// internal/evmnode/evmnodetest (this package cannot import evmnode, whose
// own tests use it). Proxy
// (proxy.go) stands between a test and a server it shares with other tests
// (Redis, PostgreSQL) to cut it or make it slow for this test alone. NPMCI
// (npm.go) installs the npm packages a test drives from a committed lock
// file. Imports (imports.go) lists a package's imports, for the tests that
// hold a package to its doc.go's rule on what it may depend on. LogBuffer
// (logbuffer.go) is a log destination a server's goroutines write to while
// the test reads it. NextMessage (ws.go) reads a WebSocket's next message
// on its own goroutine. DialKept (keptconn.go) opens a keep-alive
// connection a test writes its requests on by hand.
//
// It is for tests only; nothing in the binary imports it.
package testenv
