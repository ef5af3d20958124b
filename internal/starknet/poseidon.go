package starknet

import (
	"crypto/sha256"
	"strconv"

	"github.com/consensys/gnark-crypto/ecc/stark-curve/fp"
)

// Starknet's Poseidon: the Hades permutation over the Stark field with a
// state of three elements (rate 2, capacity 1), an S-box x³, 8 full rounds
// (4 before and 4 after 83 partial rounds, which cube the last element
// only) and the MDS matrix [[3,1,1],[1,-1,1],[1,1,-2]]. Round i adds the
// round keys 3i, 3i+1, 3i+2, where key k is sha256("Hades" + k) read as a
// big-endian integer mod P: the published parameters, generated here
// rather than copied so that they are checkable.
const (
	hadesFullRounds    = 8
	hadesPartialRounds = 83
	hadesRounds        = hadesFullRounds + hadesPartialRounds
)

var hadesRoundKeys = func() (keys [hadesRounds][3]fp.Element) {
	for i := range keys {
		for j := range keys[i] {
			sum := sha256.Sum256([]byte("Hades" + strconv.Itoa(3*i+j)))
			keys[i][j].SetBytes(sum[:]) // SetBytes reduces mod P
		}
	}
	return keys
}()

// hadesPermute applies the permutation to the state in place.
func hadesPermute(s *[3]fp.Element) {
	var t, two, three fp.Element
	for r := range hadesRounds {
		for j := range s {
			s[j].Add(&s[j], &hadesRoundKeys[r][j])
		}
		if r < hadesFullRounds/2 || r >= hadesFullRounds/2+hadesPartialRounds {
			for j := range s {
				cube(&s[j])
			}
		} else {
			cube(&s[2])
		}
		// Mix: (3a+b+c, a-b+c, a+b-2c) = t + (2a, -2b, -3c) with t = a+b+c.
		t.Add(&s[0], &s[1]).Add(&t, &s[2])
		two.Double(&s[0])
		s[0].Add(&t, &two)
		two.Double(&s[1])
		s[1].Sub(&t, &two)
		three.Double(&s[2]).Add(&three, &s[2])
		s[2].Sub(&t, &three)
	}
}

func cube(x *fp.Element) {
	var sq fp.Element
	sq.Square(x)
	x.Mul(x, &sq)
}

// poseidonHash is Starknet's poseidon_hash(x, y): the first element of the
// permutation of [x, y, 2].
func poseidonHash(x, y Felt) Felt {
	s := [3]fp.Element{x.e, y.e}
	s[2].SetUint64(2)
	hadesPermute(&s)
	return Felt{e: s[0]}
}

// poseidonMany is Starknet's poseidon_hash_many as a sponge: felts are
// absorbed two at a time into the rate; sum pads the input with 1 (and a 0
// when that leaves half a pair) and squeezes the first element.
type poseidonMany struct {
	s    [3]fp.Element
	half fp.Element // first element of a pair not yet absorbed
	odd  bool
}

func (p *poseidonMany) add(f Felt) {
	if !p.odd {
		p.half = f.e
		p.odd = true
		return
	}
	p.s[0].Add(&p.s[0], &p.half)
	p.s[1].Add(&p.s[1], &f.e)
	hadesPermute(&p.s)
	p.odd = false
}

func (p *poseidonMany) sum() Felt {
	var one fp.Element
	one.SetOne()
	if p.odd {
		p.s[0].Add(&p.s[0], &p.half)
		p.s[1].Add(&p.s[1], &one)
	} else {
		p.s[0].Add(&p.s[0], &one)
	}
	hadesPermute(&p.s)
	return Felt{e: p.s[0]}
}

// poseidonHashMany hashes a list of felts (poseidon_hash_many).
func poseidonHashMany(fs ...Felt) Felt {
	var p poseidonMany
	for _, f := range fs {
		p.add(f)
	}
	return p.sum()
}
