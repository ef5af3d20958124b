// starknet.js 7 (Starknet JSON-RPC 0.8, the devnet's /rpc/v0_8 path): the
// flow of ../flow.mjs with 7's positional Account (no cairoVersion).
import * as sn from 'starknet';
import { run } from '../flow.mjs';

await run(sn, {
  name: '7', spec: '0.8.1', starknetVersion: '0.13.4', pendingTag: 'pending', pendingStatus: 'RECEIVED',
  account: (provider, address, privateKey) => new sn.Account(provider, address, privateKey),
});
