// Package clistore is what the store commands (`nodegate keys`, `nodegate
// accounts`) share: their start (Begin: help, an unknown command, the flag
// set), the store flags (Flags), flags that may follow the arguments
// (Args), and opening the key store of a configuration as `nodegate serve`
// would.
//
// It must not hold a command's behaviour (keyscmd and accountscmd do) or
// serve anything.
package clistore
