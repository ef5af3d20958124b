package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"gopkg.in/yaml.v3"
)

// Config is the whole configuration. Every field is documented in
// README.md ("Configuration"); keep the two in step.
type Config struct {
	// Listen is the client listener's address (host:port).
	Listen string `yaml:"listen"`
	// DataDir is where nodegate keeps its files.
	DataDir string `yaml:"data_dir"`
	// APIKeys are accepted keys (32 lowercase hex characters each).
	APIKeys []string `yaml:"api_keys"`
	// Limits bound what clients control.
	Limits Limits `yaml:"limits"`
	// Upstream, when set, is a node's http(s):// or ws(s):// URL to
	// forward to instead of the embedded node.
	Upstream string `yaml:"upstream"`
	// Node configures the embedded node.
	Node Node `yaml:"node"`
	// TLS serves HTTPS and WSS on the client listener (docs/websocket.md).
	TLS TLS `yaml:"tls"`
	// WebSocket bounds /ws/v3/<key> connections (docs/websocket.md).
	WebSocket WebSocket `yaml:"websocket"`
}

// Limits bound request sizes.
type Limits struct {
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	MaxBatch     int   `yaml:"max_batch"`
}

// Node configures the embedded go-ethereum node.
type Node struct {
	// ChainDir imports genesis.json + chain.rlp (+ headfcu.json) instead of a dev chain.
	ChainDir string `yaml:"chain_dir"`
	// BlockTime is the dev chain's block period; 0 seals a block per transaction.
	BlockTime time.Duration `yaml:"block_time"`
}

// Defaults are the embedded default's settings.
func Defaults() Config {
	return Config{
		Listen:  "127.0.0.1:8545",
		DataDir: "./nodegate-data",
		Limits:  Limits{MaxBodyBytes: 5 << 20, MaxBatch: 1000},
	}
}

// Load reads a YAML file over the defaults. ${NAME} is replaced by the
// environment variable NAME before decoding (for secrets).
func Load(path string) (Config, error) {
	cfg := Defaults()
	raw, err := os.ReadFile(path)
	if err != nil {
		return cfg, fmt.Errorf("read config: %w", err)
	}
	if err := Decode(raw, &cfg); err != nil {
		return cfg, fmt.Errorf("config %s: %w", path, err)
	}
	return cfg, nil
}

// Decode decodes YAML strictly into cfg, expanding ${ENV} first.
func Decode(raw []byte, cfg *Config) error {
	expanded := os.Expand(string(raw), func(name string) string { return os.Getenv(name) })
	dec := yaml.NewDecoder(bytes.NewReader([]byte(expanded)))
	dec.KnownFields(true)
	if err := dec.Decode(cfg); err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("decode: %w", err)
	}
	return nil
}
