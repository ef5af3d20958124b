// starknet.js's standard flow against nodegate's Starknet devnet, with
// nothing but a nodeUrl: RpcProvider.create, Account.execute with the
// library's defaults (INVOKE v3), waitForTransaction. Run by TestStarknetJS
// with the devnet listener's /v3/<key> URL; exits non-zero on any failure.
import assert from 'node:assert/strict';
import { RpcProvider, Account, ec, hash, CallData, num } from 'starknet';

const [nodeUrl] = process.argv.slice(2);
const log = (...a) => console.log('starknet.js:', ...a);

// 1. The provider detects the node's spec version by itself.
const provider = await RpcProvider.create({ nodeUrl });
const spec = await provider.getSpecVersion();
assert.equal(spec, '0.8.1');
const chainId = await provider.getChainId();
assert.equal(chainId, '0x534e5f4445564e4554'); // SN_DEVNET
log('spec', spec, 'chain', chainId);

// 2. An account: any address is one on the devnet (it deploys nothing);
// cairoVersion is given because the devnet has no class to read it from.
const privateKey = '0x1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f80';
const publicKey = ec.starkCurve.getPublicKey(privateKey); // the full point, for verify
const address = '0x0451c1e0f02a28b62c4a4b1ee3a4e0a5c0b93b1f9f6c3e6e7a9d2c4b5a6f7e81';
const account = new Account(provider, address, privateKey, '1');
assert.equal(num.toBigInt(await account.getNonce()), 0n);

// 3. Execute with the library's defaults: nonce, fee estimate and version
// (INVOKE v3) all come from the node through nodegate.
const transfer = {
  contractAddress: '0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d',
  entrypoint: 'transfer',
  calldata: CallData.compile({ recipient: '0x123', amount: { low: 1000n, high: 0n } }),
};
const { transaction_hash: txHash } = await account.execute(transfer);
log('sent', txHash);

// 4. The node's hash is the one the account signed: the signature it
// stored verifies over that hash with the account's key, and starknet.js
// computes the same hash from the stored fields.
const tx = await provider.getTransactionByHash(txHash);
assert.equal(tx.version, '0x3');
assert.equal(tx.type, 'INVOKE');
const [r, s] = tx.signature;
const recomputed = hash.calculateInvokeTransactionHash({
  senderAddress: tx.sender_address, version: tx.version, compiledCalldata: tx.calldata, chainId,
  nonce: tx.nonce, accountDeploymentData: tx.account_deployment_data,
  nonceDataAvailabilityMode: 0, feeDataAvailabilityMode: 0,
  resourceBounds: tx.resource_bounds, tip: tx.tip, paymasterData: tx.paymaster_data,
});
assert.equal(num.toBigInt(recomputed), num.toBigInt(txHash));
assert.ok(ec.starkCurve.verify(new ec.starkCurve.Signature(BigInt(r), BigInt(s)), txHash, publicKey), 'signature does not verify over the node hash');
assert.ok(!ec.starkCurve.verify(new ec.starkCurve.Signature(BigInt(r), BigInt(s)), num.toHex(num.toBigInt(txHash) + 1n), publicKey), 'signature verifies over any hash');

// 5. Before its block: RECEIVED, no receipt yet, and listed by the
// service's rollup_pendingTransactions with max_fee from its resource bounds.
assert.equal((await provider.getTransactionStatus(txHash)).finality_status, 'RECEIVED');
const rollup = async () => (await fetch(nodeUrl, {
  method: 'POST', headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'rollup_pendingTransactions', params: [] }),
}).then((res) => res.json())).result;
const pending = (await rollup()).find((p) => p.transaction_hash === txHash);
assert.ok(pending, 'not in rollup_pendingTransactions before its block');
const rb = tx.resource_bounds;
const maxFee = ['l1_gas', 'l2_gas', 'l1_data_gas'].reduce((sum, k) => sum + BigInt(rb[k].max_amount) * BigInt(rb[k].max_price_per_unit), 0n);
assert.equal(BigInt(pending.max_fee), maxFee);
assert.equal(pending.contract_address, tx.sender_address);
assert.equal(pending.version, '0x3');
assert.equal(num.toBigInt(await account.getNonce()), 1n);

// A replayed nonce is refused with Starknet's error, nothing stored.
await assert.rejects(account.execute(transfer, { nonce: 0 }), /Invalid transaction nonce|52/);

// 6. waitForTransaction with its defaults: ACCEPTED_ON_L2, then the receipt.
const receipt = await provider.waitForTransaction(txHash);
assert.equal(receipt.execution_status, 'SUCCEEDED');
assert.equal(receipt.finality_status, 'ACCEPTED_ON_L2');
assert.ok(receipt.isSuccess());
const blockNumber = receipt.value.block_number;
log('accepted in block', blockNumber);

// 7. In its block, and no longer pending.
const block = await provider.getBlockWithTxHashes(blockNumber);
assert.ok(block.transactions.includes(txHash));
const full = await provider.getBlockWithTxs(blockNumber);
assert.equal(full.transactions.find((t) => t.transaction_hash === txHash).signature[0], r);
const withReceipts = await provider.getBlockWithReceipts(blockNumber);
assert.equal(withReceipts.transactions.find((t) => t.transaction.transaction_hash === txHash).receipt.execution_status, 'SUCCEEDED');
assert.ok(!(await rollup()).some((p) => p.transaction_hash === txHash), 'still pending after its block');
assert.equal(num.toBigInt(await provider.getNonceForAddress(address, 'latest')), 1n);

// 8. starknet_call is answered honestly: the devnet runs no code.
await assert.rejects(provider.callContract({ contractAddress: transfer.contractAddress, entrypoint: 'balanceOf', calldata: [address] }), /executes no code/);

console.log('starknet.js check passed');
