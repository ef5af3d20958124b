// Package config is nodegate's typed configuration: a strict YAML file
// (unknown fields are errors) with ${ENV} expansion, defaults, and
// Validate(), which names the path of every bad field. Command-line flags
// override the file; no file at all means the embedded default.
//
// It must not start anything: it only describes.
package config
