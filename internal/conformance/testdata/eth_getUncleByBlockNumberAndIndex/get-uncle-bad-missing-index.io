// the index is required
>> {"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockNumberAndIndex","params":["0x3"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing value for required argument 1"}}
