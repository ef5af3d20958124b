// starknet.js 10 (Starknet JSON-RPC 0.10, the devnet's default path): the
// flow of ../flow.mjs with 10's Account, which takes an options object.
import * as sn from 'starknet';
import { run } from '../flow.mjs';

await run(sn, {
  name: '10', spec: '0.10.0', starknetVersion: '0.14.0', pendingTag: 'pre_confirmed', pendingStatus: 'PRE_CONFIRMED',
  account: (provider, address, signer) => new sn.Account({ provider, address, signer }),
});
