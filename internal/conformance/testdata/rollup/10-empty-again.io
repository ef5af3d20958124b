// nothing is pending after the block
>> {"jsonrpc":"2.0","id":10,"method":"rollup_pendingTransactions","params":[]}
<< {"jsonrpc":"2.0","id":10,"result":[]}
