// Checks nodegate with the two JavaScript client libraries dapps use.
// Usage: node check.mjs <ws url> <funded address>
// Exits 0 when every check passes; prints what failed otherwise.
import { WebSocketProvider } from "ethers";
import { createPublicClient, webSocket } from "viem";

const [url, address] = process.argv.slice(2);
const fail = (msg) => { throw new Error(msg); };
const within = (ms, what, p) => Promise.race([p, new Promise((_, rej) => setTimeout(() => rej(new Error(`${what}: no answer within ${ms} ms`)), ms))]);

async function checkEthers() {
  const p = new WebSocketProvider(url);
  const net = await within(10000, "ethers getNetwork", p.getNetwork());
  if (net.chainId !== 1337n) fail(`ethers chainId ${net.chainId}`);
  // Calls made in one tick go out as one JSON-RPC batch.
  const [bal, num, code] = await within(10000, "ethers batch", Promise.all([p.getBalance(address), p.getBlockNumber(), p.getCode(address)]));
  if (bal <= 0n || typeof num !== "number" || code !== "0x") fail(`ethers batch: ${bal} ${num} ${code}`);
  // on("block") is an eth_subscribe newHeads.
  const block = await within(15000, "ethers on(block)", new Promise((res) => p.once("block", res)));
  if (typeof block !== "number" || block <= num) fail(`ethers block ${block} after ${num}`);
  // once() sends eth_unsubscribe without waiting for it; let it complete
  // before destroy(), which would cancel it.
  await new Promise((res) => setTimeout(res, 500));
  await p.destroy();
  console.log(`ethers ok: chain 1337, block ${block}`);
}

async function checkViem() {
  const client = createPublicClient({ transport: webSocket(url) });
  const id = await within(10000, "viem getChainId", client.getChainId());
  if (id !== 1337) fail(`viem chainId ${id}`);
  const num = await within(10000, "viem getBlockNumber", client.getBlockNumber());
  const bal = await within(10000, "viem getBalance", client.getBalance({ address }));
  if (bal <= 0n) fail(`viem balance ${bal}`);
  // watchBlocks over a WebSocket transport is an eth_subscribe newHeads.
  const block = await within(15000, "viem watchBlocks", new Promise((res, rej) => {
    const unwatch = client.watchBlocks({ onBlock: (b) => { unwatch(); res(b); }, onError: rej });
  }));
  if (block.number <= num) fail(`viem block ${block.number} after ${num}`);
  const rpc = await client.transport.getRpcClient();
  rpc.close();
  console.log(`viem ok: chain 1337, block ${block.number}`);
}

try {
  await checkEthers();
  await checkViem();
  process.exit(0);
} catch (e) {
  console.error(`FAIL: ${e.stack ?? e}`);
  process.exit(1);
}
