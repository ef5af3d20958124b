// Package pipeline runs calls through nodegate's stages in one fixed order
// (stages.go): recover, key policy, method rules, limits, then the route to
// an upstream. Both transports hand their calls to the same pipeline, so no
// rule exists on one transport only. A batch is split into calls that run
// concurrently, within a window and the request's answer budget, and whose
// answers are handed back in order as they finish (batch.go).
//
// It must not parse wire bytes or write responses: that is the ingress.
package pipeline
