// an EVM method on the rollup network
>> {"jsonrpc":"2.0","id":8,"method":"eth_blockNumber","params":[]}
<< {"jsonrpc":"2.0","id":8,"error":{"code":-32601,"message":"the method eth_blockNumber does not exist/is not available"}}
