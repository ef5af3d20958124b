// Package ingress owns the wire: the HTTP listener, the /v3/<key> path, the
// body and batch limits, auth failures (decided before the body is parsed)
// and writing responses. It turns bytes into pipeline calls and answers
// back into bytes.
//
// It must not decide anything about methods or upstreams: that is the pipeline's.
package ingress
