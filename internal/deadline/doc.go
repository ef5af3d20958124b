// Package deadline holds the one rule of when a call's time is up
// (Expired), for the pool, the pipeline and the method limits alike, so
// that none of them imports another for it. It must not do anything else.
package deadline
