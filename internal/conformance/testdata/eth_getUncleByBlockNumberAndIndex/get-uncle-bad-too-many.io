// two params at most
>> {"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockNumberAndIndex","params":["0x3","0x0","0x0"]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"too many arguments, want at most 2"}}
