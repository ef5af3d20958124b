// Package smtptest is a mail server for tests: a real SMTP listener on
// 127.0.0.1 that speaks enough of RFC 5321 for net/smtp and keeps the
// messages it receives. It is for tests only.
package smtptest
