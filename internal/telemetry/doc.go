// Package telemetry holds nodegate's Prometheus metrics, served on the admin
// listener. Metrics never carry a key, only its id.
//
// It records; it must not decide anything.
package telemetry
