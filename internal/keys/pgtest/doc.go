// Package pgtest gives tests a private PostgreSQL schema on the machine's
// server, so that parallel test runs never collide. It is for tests only.
package pgtest
