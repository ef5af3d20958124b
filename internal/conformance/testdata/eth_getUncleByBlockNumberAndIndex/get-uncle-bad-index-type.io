// the index is a quantity string
>> {"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockNumberAndIndex","params":["0x3",0]}
<< {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint"}}
