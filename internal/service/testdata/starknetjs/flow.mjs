// starknet.js's standard flow against nodegate's Starknet devnet, with the
// library's defaults only: RpcProvider.create (and new RpcProvider) with a nodeUrl, a predeployed
// account from devnet_getPredeployedAccounts made into an Account without
// cairoVersion (the library reads the account's class), getChainId,
// getBlock, getNonce, getClassAt, execute (INVOKE v3), waitForTransaction,
// getTransactionReceipt. Each version's check.mjs (v7/, v10/) passes its
// starknet module and how it makes an Account; TestStarknetJS runs them
// with the devnet listener's URL. Exits non-zero on any failure.
import assert from 'node:assert/strict';

export async function run(sn, v) {
  const { RpcProvider, ec, hash, CallData, num } = sn;
  const [nodeUrl, index] = process.argv.slice(2);
  const log = (...a) => console.log(`starknet.js ${v.name}:`, ...a);
  const raw = async (method, params) => {
    const res = await fetch(nodeUrl, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    }).then((r) => r.json());
    assert.ok(!res.error, `${method}: ${JSON.stringify(res.error)}`);
    return res.result;
  };

  // 1. The provider detects the node's spec version by itself.
  const provider = await RpcProvider.create({ nodeUrl });
  const spec = await provider.getSpecVersion();
  assert.equal(spec, v.spec);
  const chainId = await provider.getChainId();
  assert.equal(chainId, '0x534e5f4445564e4554'); // SN_DEVNET
  log('spec', spec, 'chain', chainId);
  // The provider made without detection speaks the library's default
  // version, the one this path serves.
  const plain = new RpcProvider({ nodeUrl });
  assert.equal(await plain.getChainId(), chainId);
  assert.equal((await plain.getBlock('latest')).starknet_version, v.starknetVersion);
  const latest = await provider.getBlock('latest');
  assert.equal(typeof latest.block_number, 'number');
  assert.equal(latest.starknet_version, v.starknetVersion);
  assert.ok(Array.isArray((await provider.getBlock(v.pendingTag)).transactions));

  // 2. A predeployed account as starknet-devnet lists them: its public key
  // is its private key's, its address the one its class and key give.
  const accounts = await raw('devnet_getPredeployedAccounts', []);
  const { address, private_key: privateKey, public_key: publicKey } = accounts[Number(index)];
  assert.equal(num.toBigInt(ec.starkCurve.getStarkKey(privateKey)), num.toBigInt(publicKey));
  const classHash = await provider.getClassHashAt(address);
  assert.equal(num.toBigInt(hash.calculateContractAddressFromHash(publicKey, classHash, [publicKey], 0)), num.toBigInt(address));
  // The class: Sierra, an account's ABI, and its hash is the class hash.
  const cls = await provider.getClassAt(address);
  assert.ok('sierra_program' in cls, 'not a Sierra class');
  const abi = typeof cls.abi === 'string' ? JSON.parse(cls.abi) : cls.abi;
  const fns = abi.filter((e) => e.type === 'interface').flatMap((e) => e.items.map((f) => f.name));
  for (const fn of ['__execute__', '__validate__', 'is_valid_signature']) assert.ok(fns.includes(fn), `ABI without ${fn}`);
  const rawClass = await raw('starknet_getClass', [v.pendingTag, classHash]);
  assert.equal(num.toBigInt(hash.computeSierraContractClassHash({ ...rawClass, abi: JSON.parse(rawClass.abi) })), num.toBigInt(classHash));

  // 3. The library's default Account: no cairoVersion.
  const account = v.account(provider, address, privateKey);
  assert.equal(num.toBigInt(await account.getNonce()), 0n);

  // 4. Execute with the library's defaults: nonce, fee estimate and version
  // (INVOKE v3) all come from the node through nodegate.
  const transfer = {
    contractAddress: '0x04718f5a0fc34cc1af16a1cdee98ffb20c31f5cd61d6ab07201858f4287c938d',
    entrypoint: 'transfer',
    calldata: CallData.compile({ recipient: '0x123', amount: { low: 1000n, high: 0n } }),
  };
  const { transaction_hash: txHash } = await account.execute(transfer);
  log('sent', txHash, 'from', address);

  // 5. The node's hash is the one the account signed: the signature it
  // stored verifies over that hash with the account's key, and starknet.js
  // computes the same hash from the stored fields.
  const tx = await provider.getTransactionByHash(txHash);
  assert.equal(tx.version, '0x3');
  assert.equal(tx.type, 'INVOKE');
  const [r, s] = tx.signature;
  const bounds = Object.fromEntries(Object.entries(tx.resource_bounds).map(([k, b]) => [k, { max_amount: BigInt(b.max_amount), max_price_per_unit: BigInt(b.max_price_per_unit) }]));
  const recomputed = hash.calculateInvokeTransactionHash({
    senderAddress: tx.sender_address, version: tx.version, compiledCalldata: tx.calldata, chainId,
    nonce: tx.nonce, accountDeploymentData: tx.account_deployment_data,
    nonceDataAvailabilityMode: 0, feeDataAvailabilityMode: 0,
    resourceBounds: bounds, tip: BigInt(tx.tip), paymasterData: tx.paymaster_data,
  });
  assert.equal(num.toBigInt(recomputed), num.toBigInt(txHash));
  const point = ec.starkCurve.getPublicKey(privateKey);
  assert.ok(ec.starkCurve.verify(new ec.starkCurve.Signature(BigInt(r), BigInt(s)), txHash, point), 'signature does not verify over the node hash');

  // 6. Before its block: in the block being built (RECEIVED on 0.8,
  // PRE_CONFIRMED on 0.10) and listed by the service's
  // rollup_pendingTransactions with max_fee from its resource bounds.
  assert.equal((await provider.getTransactionStatus(txHash)).finality_status, v.pendingStatus);
  const pending = (await raw('rollup_pendingTransactions', [])).find((p) => p.transaction_hash === txHash);
  assert.ok(pending, 'not in rollup_pendingTransactions before its block');
  const rb = tx.resource_bounds;
  const maxFee = ['l1_gas', 'l2_gas', 'l1_data_gas'].reduce((sum, k) => sum + BigInt(rb[k].max_amount) * BigInt(rb[k].max_price_per_unit), 0n);
  assert.equal(BigInt(pending.max_fee), maxFee);
  assert.equal(pending.contract_address, tx.sender_address);
  assert.ok((await provider.getBlock(v.pendingTag)).transactions.includes(txHash));
  assert.equal(num.toBigInt(await provider.getNonceForAddress(address, v.pendingTag)), 1n);

  // Another transaction with a used nonce is refused with Starknet's
  // error, nothing stored (the same one again would be a duplicate, 59).
  const other = { ...transfer, calldata: CallData.compile({ recipient: '0x123', amount: { low: 7n, high: 0n } }) };
  await assert.rejects(account.execute(other, { nonce: 0 }), /Invalid transaction nonce|52/);

  // 7. waitForTransaction with its defaults: ACCEPTED_ON_L2, then the receipt.
  const receipt = await provider.waitForTransaction(txHash);
  assert.equal(receipt.execution_status, 'SUCCEEDED');
  assert.equal(receipt.finality_status, 'ACCEPTED_ON_L2');
  assert.ok(receipt.isSuccess());
  const blockNumber = receipt.value.block_number;
  const again = await provider.getTransactionReceipt(txHash);
  assert.equal(again.value.block_number, blockNumber);
  assert.equal(again.value.block_hash, receipt.value.block_hash);
  log('accepted in block', blockNumber);

  // 8. In its block, and no longer pending.
  const block = await provider.getBlock(blockNumber);
  assert.ok(block.transactions.includes(txHash));
  assert.equal(block.block_hash, receipt.value.block_hash);
  const withReceipts = await provider.getBlockWithReceipts(blockNumber);
  assert.equal(withReceipts.transactions.find((t) => t.transaction.transaction_hash === txHash).receipt.execution_status, 'SUCCEEDED');
  assert.ok(!(await raw('rollup_pendingTransactions', [])).some((p) => p.transaction_hash === txHash), 'still pending after its block');
  assert.equal(num.toBigInt(await provider.getNonceForAddress(address, 'latest')), 1n);

  // 9. starknet_call is answered honestly: the devnet runs no code.
  await assert.rejects(provider.callContract({ contractAddress: transfer.contractAddress, entrypoint: 'balanceOf', calldata: [address] }), /executes no code/);

  console.log(`starknet.js ${v.name} check passed`);
}
