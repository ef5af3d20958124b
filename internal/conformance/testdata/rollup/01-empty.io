// nothing is pending on a new devnet
>> {"jsonrpc":"2.0","id":1,"method":"rollup_pendingTransactions","params":[]}
<< {"jsonrpc":"2.0","id":1,"result":[]}
