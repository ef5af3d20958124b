// Hardhat 3's default network, served by `hardhat node` for TestNodesDiff.
export default {};
