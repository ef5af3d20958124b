// Package family holds the network families, one Family value each (EVM,
// Starknet), each made by its own file and found by its kind (Of):
// everything a family decides about a network — its name and the methods
// that say its head and chain id (its familykind.Kind, the leaf config
// validates against), its method table, how its chain ids compare,
// whether it follows newHeads and keeps final answers, its members'
// default batch size, the JSON-RPC versions it also serves, how it reaches
// a configured upstream (the embedded node or devnet through Embedded) and
// the pipeline stages it brings. Code elsewhere asks the family (Of, or
// its familykind.Kind) and spells no family name or head or chain-id
// method name (TestNoFamilyNamesElsewhere); a new family is
// one file here and one line in familykind.All, the one list of families
// (config validates against it and cannot import this package).
//
// It wires the parts of a family together; the behaviour lives in the
// parts (pipeline's stages, upstream's transports, starknet's pending
// reader, the embedded nodes). It must not import service, ingress, keys
// or plans, and nothing it imports may import it.
package family
