// Package kubernetes holds nodegate's Kubernetes manifests (the YAML files
// of this directory) and the test that decodes them strictly with the
// Kubernetes API types and checks them against the config they carry.
// docs/deploy.md explains them. There is no Go code to import here.
package kubernetes
