package starknet

import (
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/consensys/gnark-crypto/ecc/stark-curve/fp"
)

func TestPrimeIsStarknetPrime(t *testing.T) {
	want := new(big.Int).Lsh(big.NewInt(1), 251)
	want.Add(want, new(big.Int).Lsh(big.NewInt(17), 192))
	want.Add(want, big.NewInt(1))
	if fp.Modulus().Cmp(want) != 0 {
		t.Fatalf("modulus %s, want 2^251+17*2^192+1", fp.Modulus().Text(16))
	}
}

func TestParseFelt(t *testing.T) {
	pMinus1 := new(big.Int).Sub(fp.Modulus(), big.NewInt(1))
	pPlus1 := new(big.Int).Add(fp.Modulus(), big.NewInt(1))
	tests := []struct {
		name    string
		in      string
		want    string // canonical form; empty when an error is expected
		wantErr error
	}{
		{name: "zero", in: "0x0", want: "0x0"},
		{name: "small", in: "0x1", want: "0x1"},
		{name: "upper case", in: "0XABCDEF", want: "0xabcdef"},
		{name: "leading zeros kept out", in: "0x06fb2806bc2564827796e0796144f8104581acdcbcd7721615ad376f70baf87d", want: "0x6fb2806bc2564827796e0796144f8104581acdcbcd7721615ad376f70baf87d"},
		{name: "64 zero digits", in: "0x" + strings.Repeat("0", 64), want: "0x0"},
		{name: "P-1", in: "0x" + pMinus1.Text(16), want: "0x" + pMinus1.Text(16)},
		{name: "P", in: pHex, wantErr: ErrFeltTooLarge},
		{name: "P+1", in: "0x" + pPlus1.Text(16), wantErr: ErrFeltTooLarge},
		{name: "2^256-1", in: "0x" + strings.Repeat("f", 64), wantErr: ErrFeltTooLarge},
		{name: "65 digits", in: "0x0" + strings.Repeat("0", 64), wantErr: ErrFeltSyntax},
		{name: "no prefix", in: "1234", wantErr: ErrFeltSyntax},
		{name: "prefix only", in: "0x", wantErr: ErrFeltSyntax},
		{name: "empty", in: "", wantErr: ErrFeltSyntax},
		{name: "not hex", in: "0x12g4", wantErr: ErrFeltSyntax},
		{name: "sign", in: "-0x1", wantErr: ErrFeltSyntax},
		{name: "space", in: "0x 1", wantErr: ErrFeltSyntax},
		{name: "decimal", in: "12345", wantErr: ErrFeltSyntax},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ParseFelt(tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("ParseFelt(%q) error %v, want %v", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseFelt(%q): %v", tt.in, err)
			}
			if got := f.String(); got != tt.want {
				t.Fatalf("String() = %s, want %s", got, tt.want)
			}
			if got := string(f.AppendHex(nil)); got != tt.want {
				t.Fatalf("AppendHex = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFeltJSON(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		wantErr bool
	}{
		{name: "string", in: `"0x1A"`, want: `"0x1a"`},
		{name: "number", in: `26`, wantErr: true},
		{name: "null", in: `null`, wantErr: true},
		{name: "object", in: `{}`, wantErr: true},
		{name: "over prime", in: `"` + pHex + `"`, wantErr: true},
		{name: "escaped", in: `"\u0030x1"`, want: `"0x1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var f Felt
			err := f.UnmarshalJSON([]byte(tt.in))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("UnmarshalJSON(%s) = %s, want an error", tt.in, f)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			out, _ := f.MarshalJSON()
			if string(out) != tt.want {
				t.Fatalf("round trip %s, want %s", out, tt.want)
			}
		})
	}
}

func TestChainIDFelt(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantErr        bool
	}{
		{name: "mainnet", in: "SN_MAIN", want: "0x534e5f4d41494e"},
		{name: "sepolia", in: "SN_SEPOLIA", want: "0x534e5f5345504f4c4941"},
		{name: "goerli", in: "SN_GOERLI", want: "0x534e5f474f45524c49"},
		{name: "31 bytes", in: strings.Repeat("A", 31), want: "0x" + strings.Repeat("41", 31)},
		{name: "32 bytes", in: strings.Repeat("A", 32), wantErr: true},
		{name: "empty", in: "", wantErr: true},
		{name: "control char", in: "SN\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := ChainIDFelt(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ChainIDFelt(%q) = %s, want an error", tt.in, f)
				}
				return
			}
			if err != nil || f.String() != tt.want {
				t.Fatalf("ChainIDFelt(%q) = %s, %v; want %s", tt.in, f, err, tt.want)
			}
		})
	}
}

// FuzzParseFelt checks that a parsed felt always equals its input's value
// (never reduced), and that everything refused is either malformed or not
// below P.
func FuzzParseFelt(f *testing.F) {
	for _, s := range []string{"0x0", "0x1", pHex, "0x" + strings.Repeat("f", 64), "0x", "0xg", "0X0aB", "", "0x" + strings.Repeat("0", 65)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseFelt(s)
		want, ok := referenceValue(s)
		if !ok {
			if err == nil {
				t.Fatalf("ParseFelt(%q) accepted malformed input as %s", s, v)
			}
			return
		}
		if want.Cmp(fp.Modulus()) >= 0 {
			if !errors.Is(err, ErrFeltTooLarge) {
				t.Fatalf("ParseFelt(%q) = %s, %v; want ErrFeltTooLarge", s, v, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("ParseFelt(%q): %v", s, err)
		}
		if v.Big().Cmp(want) != 0 {
			t.Fatalf("ParseFelt(%q) = %s, want %s", s, v, want.Text(16))
		}
		again, err := ParseFelt(v.String())
		if err != nil || !again.Equal(v) {
			t.Fatalf("canonical form %s does not parse back: %v", v, err)
		}
	})
}

// referenceValue is an independent reading of the felt syntax via math/big.
func referenceValue(s string) (*big.Int, bool) {
	if len(s) < 3 || len(s) > 66 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return nil, false
	}
	for _, c := range s[2:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return nil, false
		}
	}
	v, ok := new(big.Int).SetString(s[2:], 16)
	return v, ok
}
