// the method takes no params
>> {"jsonrpc":"2.0","id":6,"method":"rollup_pendingTransactions","params":["pending"]}
<< {"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"too many arguments, want at most 0"}}
