package config

import (
	"strings"
	"testing"
)

// TestStarknetListen: the embedded default's devnet has a listener of its
// own (127.0.0.1:8547), empty turns it off, and a bad or shared address is
// refused naming starknet_listen.
func TestStarknetListen(t *testing.T) {
	c := Defaults()
	nets := c.EffectiveNetworks()
	if nets[1].Listen != "127.0.0.1:8547" || nets[1].Hosts[0] != StarknetLocalHost || nets[1].Starknet.Devnet.BlockTime != DefaultDevnetBlockTime {
		t.Fatalf("default starknet network: %+v", nets[1])
	}
	c.StarknetListen = ""
	if nets := c.EffectiveNetworks(); nets[1].Listen != "" {
		t.Fatalf("empty starknet_listen still listens: %+v", nets[1])
	}
	for _, tc := range []struct{ name, addr, wantErr string }{
		{"default", "127.0.0.1:8547", ""},
		{"off", "", ""},
		{"system picks", "127.0.0.1:0", ""},
		{"not host:port", "8547", "starknet_listen"},
		{"same as listen", "127.0.0.1:8545", "starknet_listen: \"127.0.0.1:8545\" is also used"},
		{"same as admin", "127.0.0.1:8546", "starknet_listen: \"127.0.0.1:8546\" is also used"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Defaults()
			c.StarknetListen = tc.addr
			err := c.Validate()
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
	var y Config
	if err := Decode([]byte("starknet_listen: 127.0.0.1:9547\n"), &y); err != nil || y.StarknetListen != "127.0.0.1:9547" {
		t.Fatalf("yaml starknet_listen: %q, %v", y.StarknetListen, err)
	}
}
