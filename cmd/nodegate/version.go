package main

import "runtime/debug"

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = ""

// Version is the build's version: the linker-set one, else the module's.
func Version() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
