// Package tracing sets up OpenTelemetry traces from the standard OTEL_*
// environment variables: off by default, exported with OTLP over HTTP
// (protobuf) when asked for (FromEnv says when), with the W3C trace
// context as the propagator. It makes the tracer; what is traced is
// internal/observe's business.
package tracing
