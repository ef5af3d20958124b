// a block past the head is null
>> {"jsonrpc":"2.0","id":1,"method":"eth_getUncleByBlockNumberAndIndex","params":["0x1000","0x0"]}
<< {"jsonrpc":"2.0","id":1,"result":null}
