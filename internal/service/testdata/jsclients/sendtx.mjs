// Sends one transaction with ethers v6 over HTTP, as a dapp does with a
// new key: Wallet.sendTransaction fills in the nonce, gas, fees and chain
// id, signs, and sends. ethers' own retry of a 429 is turned off, so that
// a refusal of its burst fails the check instead of being waited out.
// Usage: node sendtx.mjs <http url> <private key> <to address>
// Prints the methods ethers sent and the transaction hash; exits 1 on failure.
import { FetchRequest, JsonRpcProvider, Wallet } from "ethers";

const [url, key, to] = process.argv.slice(2);
const req = new FetchRequest(url);
req.setThrottleParams({ maxAttempts: 1 });
const sent = [];
req.preflightFunc = async (r) => {
  const body = JSON.parse(new TextDecoder().decode(r.body));
  for (const c of Array.isArray(body) ? body : [body]) sent.push(c.method);
  return r;
};
try {
  const provider = new JsonRpcProvider(req, undefined, { staticNetwork: false });
  const wallet = new Wallet(key, provider);
  const tx = await wallet.sendTransaction({ to, value: 1n });
  console.log(`methods: ${sent.join(" ")}`);
  console.log(`sent ${tx.hash}`);
  process.exit(0);
} catch (e) {
  console.log(`methods: ${sent.join(" ")}`);
  console.error(`FAIL: ${e.shortMessage ?? e.message}`);
  process.exit(1);
}
