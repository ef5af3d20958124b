// Package redistest gives tests the machine's Redis under a private key
// prefix (testenv.Proxy plays its outages and slowness without touching
// the server other tests share). It is for tests only.
package redistest
