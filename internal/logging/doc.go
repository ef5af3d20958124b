// Package logging makes nodegate's slog loggers from the log settings
// (format text or json, level): the process's default logger and the
// access log. It must not decide what is logged.
package logging
