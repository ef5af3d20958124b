package service_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
	"github.com/gorilla/websocket"
	"github.com/nodegate/nodegate/internal/config"
	"github.com/nodegate/nodegate/internal/evmnode"
	"github.com/nodegate/nodegate/internal/service"
	"github.com/nodegate/nodegate/internal/servicetest"
)

// start runs nodegate with cfg (listening on an OS-picked port, files in a
// temp dir) and stops it when the test ends.
func start(t *testing.T, edit func(*config.Config)) *service.Service {
	t.Helper()
	cfg := servicetest.Config(t)
	cfg.Plans["team"] = config.Plan{Failover: true} // no rate limits: these tests are about WebSockets
	if edit != nil {
		edit(&cfg)
	}
	return servicetest.Start(t, cfg)
}

// wsEndpoint is the client URL /ws/v3/<key>.
func wsEndpoint(s *service.Service) string { return s.WSURL() + "/ws/v3/" + s.GeneratedKey }

// trust is a TLS client configuration that trusts the service's self-signed certificate.
func trust(t *testing.T, s *service.Service) *tls.Config {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(s.LocalCA.PEM) {
		t.Fatal("local CA PEM does not parse")
	}
	return &tls.Config{RootCAs: pool}
}

// dialEth connects go-ethereum's client to url.
func dialEth(t *testing.T, url string, tlsCfg *tls.Config) (*ethclient.Client, *rpc.Client) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var opts []rpc.ClientOption
	if tlsCfg != nil {
		opts = append(opts, rpc.WithWebsocketDialer(websocket.Dialer{TLSClientConfig: tlsCfg, HandshakeTimeout: 5 * time.Second}))
	}
	rc, err := rpc.DialOptions(ctx, url, opts...)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	t.Cleanup(rc.Close)
	return ethclient.NewClient(rc), rc
}

// logEmitterInitCode is contract creation code that emits one LOG1 with
// topic and deploys nothing: the log's address is the created address.
func logEmitterInitCode(topic common.Hash) []byte {
	code := append([]byte{0x7f}, topic.Bytes()...)          // PUSH32 topic
	return append(code, 0x60, 0x00, 0x60, 0x00, 0xa1, 0x00) // PUSH1 0 PUSH1 0 LOG1 STOP
}

// sendCreate sends a contract creation from the first dev account and
// returns the created address.
func sendCreate(t *testing.T, ec *ethclient.Client, node *evmnode.Node, code []byte) common.Address {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	acc := node.Accounts()[0]
	nonce, err := ec.PendingNonceAt(ctx, acc.Address)
	if err != nil {
		t.Fatalf("nonce: %v", err)
	}
	tx := types.NewTx(&types.DynamicFeeTx{
		ChainID: new(big.Int).SetUint64(node.ChainID()), Nonce: nonce,
		GasTipCap: big.NewInt(1e9), GasFeeCap: big.NewInt(100e9), Gas: 200_000, Data: code,
	})
	signed, err := types.SignTx(tx, types.LatestSignerForChainID(tx.ChainId()), acc.Key)
	if err != nil {
		t.Fatalf("sign: %v", err)
	}
	if err := ec.SendTransaction(ctx, signed); err != nil {
		t.Fatalf("send: %v", err)
	}
	return crypto.CreateAddress(acc.Address, nonce)
}
