package pipeline

import (
	"github.com/nodegate/nodegate/internal/methods"
	"github.com/nodegate/nodegate/internal/upstream"
)

// Network is one chain behind nodegate: its method table and where calls go.
type Network struct {
	Name     string
	Family   methods.Family
	ChainID  uint64
	Methods  *methods.Table
	Upstream upstream.Upstream
}
