// Runs the same reads with ethers v6, viem and web3.js against one
// endpoint and prints each outcome as one JSON object (check name: result
// or error summary), so that a node's outcomes and nodegate's in front of
// it can be compared (TestClientsBehindHardhat).
// Usage: node check.mjs <http|ws url> <contract> <from> <tx hash>
// An error is summarised by what a dapp acts on (its class, code and
// revert data), not its message, which names the URL.
import { JsonRpcProvider, WebSocketProvider } from "ethers";
import { createPublicClient, http, webSocket } from "viem";
import { Web3 } from "web3";

const [url, contract, from, txHash] = process.argv.slice(2);
const ws = url.startsWith("ws");
const revertCall = { from, to: contract, data: "0x01" };
const okCall = { from, to: contract };

// revertData finds the hex data an error carries, through its causes.
function revertData(e, depth = 0) {
  if (!e || typeof e !== "object" || depth > 6) return undefined;
  for (const k of ["data", "revert", "raw"]) {
    const v = e[k];
    if (typeof v === "string" && v.startsWith("0x")) return v;
    if (v && typeof v === "object" && typeof v.data === "string") return v.data;
  }
  for (const k of ["cause", "innerError", "error", "info"]) {
    const d = revertData(e[k], depth + 1);
    if (d) return d;
  }
  return undefined;
}

const summary = (e) => ({ error: e?.name ?? "Error", code: e?.code ?? null, data: revertData(e) ?? null });
const text = (v) => JSON.parse(JSON.stringify(v, (_, x) => (typeof x === "bigint" ? x.toString() : x)));

async function run(checks) {
  const out = {};
  for (const [name, f] of Object.entries(checks)) {
    try {
      out[name] = { ok: text(await f()) };
    } catch (e) {
      out[name] = summary(e);
    }
  }
  return out;
}

async function ethersChecks() {
  const p = ws ? new WebSocketProvider(url) : new JsonRpcProvider(url, undefined, { staticNetwork: true });
  const r = await run({
    chainId: async () => (await p.getNetwork()).chainId,
    balance: () => p.getBalance(from, "earliest"),
    code: () => p.getCode(contract),
    storage: () => p.getStorage(contract, 0),
    call: () => p.call(okCall),
    callReverts: () => p.call(revertCall),
    estimate: () => p.estimateGas(okCall),
    estimateReverts: () => p.estimateGas(revertCall),
    logs: async () => (await p.getLogs({ address: contract, fromBlock: 0 })).map((l) => [l.blockNumber, l.topics]),
    receipt: async () => { const x = await p.getTransactionReceipt(txHash); return [x.status, x.blockNumber, x.logs.length]; },
    tx: async () => { const x = await p.getTransaction(txHash); return [x.hash, x.to, x.nonce]; },
  });
  await p.destroy();
  return r;
}

async function viemChecks() {
  const client = createPublicClient({ transport: ws ? webSocket(url) : http(url) });
  const r = await run({
    chainId: () => client.getChainId(),
    balance: () => client.getBalance({ address: from, blockTag: "earliest" }),
    code: () => client.getCode({ address: contract }),
    storage: () => client.getStorageAt({ address: contract, slot: "0x0" }),
    call: async () => (await client.call(okCall)).data,
    callReverts: async () => (await client.call(revertCall)).data,
    estimate: () => client.estimateGas({ account: from, to: contract }),
    estimateReverts: () => client.estimateGas({ account: from, to: contract, data: "0x01" }),
    logs: async () => (await client.getLogs({ address: contract, fromBlock: 0n })).map((l) => [l.blockNumber, l.topics]),
    receipt: async () => { const x = await client.getTransactionReceipt({ hash: txHash }); return [x.status, x.blockNumber, x.logs.length]; },
    tx: async () => { const x = await client.getTransaction({ hash: txHash }); return [x.hash, x.to, x.nonce]; },
  });
  if (ws) (await client.transport.getRpcClient()).close();
  return r;
}

async function web3Checks() {
  const web3 = new Web3(ws ? new Web3.providers.WebsocketProvider(url) : url);
  const r = await run({
    chainId: () => web3.eth.getChainId(),
    balance: () => web3.eth.getBalance(from, "earliest"),
    code: () => web3.eth.getCode(contract),
    storage: () => web3.eth.getStorageAt(contract, 0),
    call: () => web3.eth.call(okCall),
    callReverts: () => web3.eth.call(revertCall),
    estimate: () => web3.eth.estimateGas(okCall),
    estimateReverts: () => web3.eth.estimateGas(revertCall),
    logs: async () => (await web3.eth.getPastLogs({ address: contract, fromBlock: 0 })).map((l) => [l.blockNumber, l.topics]),
    receipt: async () => { const x = await web3.eth.getTransactionReceipt(txHash); return [x.status, x.blockNumber, x.logs.length]; },
    tx: async () => { const x = await web3.eth.getTransaction(txHash); return [x.hash, x.to, x.nonce]; },
  });
  if (ws) web3.currentProvider.disconnect();
  return r;
}

const out = { ethers: await ethersChecks(), viem: await viemChecks(), web3: await web3Checks() };
console.log(JSON.stringify(out));
process.exit(0);
